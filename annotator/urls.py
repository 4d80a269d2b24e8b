from django.urls import path

from . import views

app_name = "annotator"

urlpatterns = [
    path("issues/", views.issue_list, name="issue_list"),
]

from django.urls import path

from . import views

app_name = "taxonomy"

urlpatterns = [
    path("", views.taxonomy_list, name="taxonomy_list"),
    path("<slug:slug>/v<int:number>/", views.version_detail, name="version_detail"),
]

from django.urls import path

from . import views

app_name = "taxonomy"

urlpatterns = [
    path("", views.taxonomy_list, name="taxonomy_list"),
    path("<slug:slug>/v<id:number>/", views.version_detail, name="version_detail"),
    path("<slug:slug>/v<id:number>/edit/", views.version_edit, name="version_edit"),
    path("<slug:slug>/v<id:number>/edit/apply/", views.version_edit_apply, name="version_edit_apply"),
    path("<slug:slug>/v<id:number>/draft/", views.version_new_draft, name="version_new_draft"),
    path("<slug:slug>/v<id:number>/publish/", views.version_publish_draft, name="version_publish_draft"),
]

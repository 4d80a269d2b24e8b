from django.urls import path

from . import views

urlpatterns = [
    path("taxonomies/", views.TaxonomyListApi.as_view(), name="taxonomy_list"),
    path("taxonomies/<slug:slug>/", views.TaxonomyDetailApi.as_view(), name="taxonomy_detail"),
    path(
        "taxonomies/<slug:slug>/versions/<id:number>/",
        views.TaxonomyVersionDetailApi.as_view(),
        name="taxonomy_version_detail",
    ),
]

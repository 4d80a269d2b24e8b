"""Routes of a published study's releases (included from urls.py, under /api/v1/public/studies/<slug>/)."""

from django.urls import path

from annotator.api.resources import public
from annotator.views.public import release_file

PREFIX = "public/studies/<slug:slug>/releases/"

urlpatterns = [
    path(PREFIX, public.PublicReleaseListApi.as_view(), name="public_release_list"),
    path(f"{PREFIX}<id:number>/", public.PublicReleaseApi.as_view(), name="public_release"),
    path(f"{PREFIX}<id:number>/dataset/", public.PublicReleaseDatasetApi.as_view(), name="public_release_dataset"),
    path(
        f"{PREFIX}<id:number>/agreement/", public.PublicReleaseAgreementApi.as_view(), name="public_release_agreement"
    ),
    path(f"{PREFIX}<id:number>/findings/", public.PublicReleaseFindingsApi.as_view(), name="public_release_findings"),
    path(f"{PREFIX}<id:number>/files/<str:name>", release_file, name="public_release_file_api"),
]

"""Routes of the resource API (included from annotator/api/urls.py, under /api/v1/)."""

from django.urls import path

from annotator.api.resources import annotations, components, imports, issues, public, public_release_urls, studies

urlpatterns = [
    path("repositories/", issues.RepositoryListApi.as_view(), name="repository_list"),
    path("repositories/<id:pk>/", issues.RepositoryDetailApi.as_view(), name="repository_detail"),
    path(
        "repositories/<id:pk>/components/",
        components.RepositoryComponentsApi.as_view(),
        name="repository_components",
    ),
    path("issues/", issues.IssueListApi.as_view(), name="issue_list"),
    path("issues/<id:pk>/", issues.IssueDetailApi.as_view(), name="issue_detail"),
    path("studies/", studies.StudyListApi.as_view(), name="study_list"),
    path("studies/<id:pk>/", studies.StudyDetailApi.as_view(), name="study_detail"),
    path("studies/<id:pk>/category-counts/", studies.StudyCategoryCountsApi.as_view(), name="study_category_counts"),
    path("me/annotations/", annotations.MyAnnotationsApi.as_view(), name="me_annotations"),
    path("import-jobs/", imports.ImportJobListApi.as_view(), name="import_job_list"),
    path("import-jobs/<id:pk>/", imports.ImportJobDetailApi.as_view(), name="import_job_detail"),
    path("public/studies/", public.PublicStudyListApi.as_view(), name="public_study_list"),
    path("public/studies/<slug:slug>/", public.PublicStudyApi.as_view(), name="public_study"),
    path("public/studies/<slug:slug>/dataset/", public.PublicStudyDatasetApi.as_view(), name="public_study_dataset"),
    path(
        "public/studies/<slug:slug>/agreement/", public.PublicStudyAgreementApi.as_view(), name="public_study_agreement"
    ),
    path("public/studies/<slug:slug>/findings/", public.PublicStudyFindingsApi.as_view(), name="public_study_findings"),
    *public_release_urls.urlpatterns,
]

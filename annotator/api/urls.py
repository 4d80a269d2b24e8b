from django.urls import path

from annotator.api import agreement, exports, publication, resolutions, views
from annotator.api.resources import urls as resources_urls

urlpatterns = [
    path("studies/<id:pk>/assignments/next/", views.RaterNextAssignmentApi.as_view(), name="study_assignments_next"),
    path("studies/<id:pk>/assignments/mine/", views.RaterMyAssignmentsApi.as_view(), name="study_assignments_mine"),
    path("annotations/<id:pk>/", views.AnnotationDetailApi.as_view(), name="annotation_detail"),
    path("annotations/<id:pk>/draft/", views.AnnotationDraftApi.as_view(), name="annotation_draft"),
    path("annotations/<id:pk>/submit/", views.AnnotationSubmitApi.as_view(), name="annotation_submit"),
    path("studies/<id:pk>/agreement/", agreement.StudyAgreementApi.as_view(), name="study_agreement"),
    *resolutions.urlpatterns,
    *resources_urls.urlpatterns,
    *exports.urlpatterns,
    *publication.urlpatterns,
]

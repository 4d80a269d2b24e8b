from django.urls import path

from annotator.api import agreement, exports, resolutions, views
from annotator.api.resources import urls as resources_urls

urlpatterns = [
    path("studies/<int:pk>/assignments/next/", views.RaterNextAssignmentApi.as_view(), name="study_assignments_next"),
    path("studies/<int:pk>/assignments/mine/", views.RaterMyAssignmentsApi.as_view(), name="study_assignments_mine"),
    path("annotations/<int:pk>/", views.AnnotationDetailApi.as_view(), name="annotation_detail"),
    path("annotations/<int:pk>/draft/", views.AnnotationDraftApi.as_view(), name="annotation_draft"),
    path("annotations/<int:pk>/submit/", views.AnnotationSubmitApi.as_view(), name="annotation_submit"),
    path("studies/<int:pk>/agreement/", agreement.StudyAgreementApi.as_view(), name="study_agreement"),
    *resolutions.urlpatterns,
    *resources_urls.urlpatterns,
    *exports.urlpatterns,
]

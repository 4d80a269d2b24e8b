from .views import (
    adjudication,
    agreement,
    cardsort,
    components,
    exports,
    github,
    history,
    imports,
    issues,
    labelling,
    members,
    public,
    report,
    sheets,
    studies,
    study_version,
)

app_name = "annotator"

urlpatterns = [
    *sheets.urlpatterns,
    *cardsort.urlpatterns,
    *study_version.urlpatterns,
    *issues.urlpatterns,
    *imports.urlpatterns,
    *studies.urlpatterns,
    *members.urlpatterns,
    *labelling.urlpatterns,
    *github.urlpatterns,
    *components.urlpatterns,
    *agreement.urlpatterns,
    *adjudication.urlpatterns,
    *history.urlpatterns,
    *public.urlpatterns,
    *exports.urlpatterns,
    *report.urlpatterns,
]

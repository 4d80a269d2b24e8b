from .views import github, imports, issues, labelling, studies

app_name = "annotator"

urlpatterns = [
    *issues.urlpatterns,
    *imports.urlpatterns,
    *studies.urlpatterns,
    *labelling.urlpatterns,
    *github.urlpatterns,
]

from .views import imports, issues, studies

app_name = "annotator"

urlpatterns = [*issues.urlpatterns, *imports.urlpatterns, *studies.urlpatterns]

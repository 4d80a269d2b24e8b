app_name = "taxonomy"

urlpatterns: list = []

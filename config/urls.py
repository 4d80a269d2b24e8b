from django.contrib import admin
from django.contrib.auth import views as auth_views
from django.urls import include, path
from drf_spectacular.views import SpectacularAPIView, SpectacularSwaggerView

from core import views as core_views
from core import views_account, views_tokens
from core.api_index import ApiIndexApi

api_v1 = [
    path("", ApiIndexApi.as_view(), name="index"),
    path("", include("annotator.api.urls")),
    path("", include("taxonomy.api.urls")),
]

urlpatterns = [
    path("", core_views.home, name="home"),
    path("healthz", core_views.healthz, name="healthz"),
    path("accounts/login/", views_account.LoginView.as_view(), name="login"),
    path("accounts/logout/", auth_views.LogoutView.as_view(), name="logout"),
    path("account/", views_account.account, name="account"),
    path("account/password/", views_account.PasswordChangeView.as_view(), name="account_password"),
    path("account/tokens/", views_tokens.tokens, name="account_tokens"),
    path("admin/", admin.site.urls),
    path("api/v1/", include((api_v1, "api"), namespace="api")),
    path("api/schema/", SpectacularAPIView.as_view(), name="schema"),
    path("api/docs/", SpectacularSwaggerView.as_view(url_name="schema"), name="swagger-ui"),
    path("", include("annotator.urls")),
    path("taxonomies/", include("taxonomy.urls")),
]

handler404 = "core.api.not_found"
handler500 = "core.api.server_error"

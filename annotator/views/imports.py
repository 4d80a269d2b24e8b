from django.contrib.auth.decorators import login_required
from django.http import HttpRequest, HttpResponse
from django.shortcuts import render
from django.urls import path


@login_required
def imports_index(request: HttpRequest) -> HttpResponse:
    return render(request, "base.html", {})


urlpatterns = [
    path("imports/", imports_index, name="import_list"),
]

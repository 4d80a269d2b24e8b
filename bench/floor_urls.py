"""Two endpoints that do nearly nothing, served only by the labelling benchmark to measure its floor.

Same middleware, session authentication, DRF request handling and database as the rater's API:
one reads `SELECT 1`, the other commits one one-row UPDATE (a durable commit, as every save is).
What a real endpoint costs above these is the product's own work.
"""

from django.db import connection, transaction
from django.urls import path
from rest_framework.permissions import IsAuthenticated
from rest_framework.response import Response
from rest_framework.views import APIView

from config.urls import urlpatterns as product_urlpatterns


class FloorReadApi(APIView):
    permission_classes = [IsAuthenticated]

    def get(self, request):
        with connection.cursor() as cursor:
            cursor.execute("SELECT 1")
            cursor.fetchone()
        return Response({"ok": True})


class FloorWriteApi(APIView):
    permission_classes = [IsAuthenticated]

    def put(self, request):
        with transaction.atomic(), connection.cursor() as cursor:
            cursor.execute("UPDATE core_user SET last_login = last_login WHERE id = %s", [request.user.pk])
        return Response({"ok": True})


urlpatterns = [
    *product_urlpatterns,
    path("bench/floor/read/", FloorReadApi.as_view()),
    path("bench/floor/write/", FloorWriteApi.as_view()),
]

"""A Django REST framework service, as a new user would write one: a
paginated ViewSet (`count`/`next`/`previous`/`results`), Django's
ConditionalGetMiddleware (ETags and 304s), a redirect to an absolute URL,
and an echo of what the service was sent. Served by uvicorn (ASGI).

Run as `python drf_app.py`: prints `port N` once bound, and exits when its
standard input closes (so it never outlives the test process).
"""

import os
import socket
import sys
import threading

import django
from django.conf import settings

settings.configure(
    DEBUG=False,
    SECRET_KEY="terse-tests",
    ALLOWED_HOSTS=["*"],
    ROOT_URLCONF=__name__,
    INSTALLED_APPS=["django.contrib.contenttypes", "django.contrib.auth", "rest_framework"],
    MIDDLEWARE=[
        "django.middleware.common.CommonMiddleware",
        "django.middleware.http.ConditionalGetMiddleware",
    ],
    DATABASES={},
    REST_FRAMEWORK={
        "DEFAULT_PAGINATION_CLASS": "rest_framework.pagination.PageNumberPagination",
        "PAGE_SIZE": 10,
        "DEFAULT_AUTHENTICATION_CLASSES": [],
        "DEFAULT_PERMISSION_CLASSES": [],
        "UNAUTHENTICATED_USER": None,
    },
)
django.setup()

from django.http import HttpResponseRedirect  # noqa: E402
from django.urls import include, path  # noqa: E402
from rest_framework import routers, viewsets  # noqa: E402
from rest_framework.decorators import api_view  # noqa: E402
from rest_framework.response import Response  # noqa: E402

TASKS = [
    {"id": i, "title": f"Task {i}", "project": "apollo" if i % 2 else "zeus",
     "done": i % 3 == 0}
    for i in range(1, 58)
]


class TaskViewSet(viewsets.ViewSet):
    def list(self, request):
        paginator = self.paginator
        page = paginator.paginate_queryset(TASKS, request, view=self)
        return paginator.get_paginated_response(page)

    @property
    def paginator(self):
        if not hasattr(self, "_paginator"):
            from rest_framework.pagination import PageNumberPagination
            self._paginator = PageNumberPagination()
        return self._paginator

    def retrieve(self, request, pk=None):
        return Response(TASKS[int(pk) - 1])

    def create(self, request):
        # Parsed by DRF's JSONParser: a body of another type is a 415.
        return Response({
            "created": request.data,
            "content_type": request.META.get("CONTENT_TYPE"),
            "content_length": request.META.get("CONTENT_LENGTH"),
            "transfer_encoding": request.META.get("HTTP_TRANSFER_ENCODING"),
        }, status=201)


@api_view(["GET"])
def echo(request):
    return Response({
        "query": request.META.get("QUERY_STRING", ""),
        "accept": request.META.get("HTTP_ACCEPT"),
        "prefer": request.META.get("HTTP_X_PREFER_FORMAT"),
        "host": request.META.get("HTTP_HOST"),
    })


def old_tasks(request):
    # Absolute, as many services write them: from the `Host` they were sent.
    return HttpResponseRedirect(request.build_absolute_uri("/tasks/"))


router = routers.DefaultRouter()
router.register("tasks", TaskViewSet, basename="task")

urlpatterns = [
    path("echo/", echo),
    path("old-tasks/", old_tasks),
    path("", include(router.urls)),
]


def watch_stdin():
    sys.stdin.read()
    os._exit(0)


if __name__ == "__main__":
    import uvicorn
    from django.core.asgi import get_asgi_application

    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.bind(("127.0.0.1", 0))
    threading.Thread(target=watch_stdin, daemon=True).start()
    print(f"port {sock.getsockname()[1]}", flush=True)
    config = uvicorn.Config(get_asgi_application(), log_level="critical", lifespan="off")
    uvicorn.Server(config).run(sockets=[sock])

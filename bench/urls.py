"""The app's URLs and the benchmark's yardstick, the bare page (first, so it costs the least a
signed-in request can)."""

from django.urls import include, path

from bench.views import bare

urlpatterns = [
    path("bench/bare/", bare, name="bench_bare"),
    path("", include("studyapp.urls")),
]

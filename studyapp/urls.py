from django.contrib import admin
from django.urls import include, path

urlpatterns = [
    path("admin/", admin.site.urls),
    # The app's URLs first: its rate-limited password reset stands in for Django's.
    path("", include("quiz.urls")),
    path("accounts/", include("django.contrib.auth.urls")),
]

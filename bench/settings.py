"""The app's settings, with the benchmark's URLs (the app's plus the bare page): only `make
bench` runs with these, never a deployment."""

from studyapp.settings import *  # noqa: F403

ROOT_URLCONF = "bench.urls"

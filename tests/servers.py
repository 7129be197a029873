"""Real app servers for tests that need more than one: gunicorn on production settings, on a
database of their own (a copy of the test run's kind: PostgreSQL when DATABASE_URL points at
one, else an SQLite file), each on a free port of 127.0.0.1."""

import contextlib
import http.cookiejar
import os
import re
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.parse
import urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def free_port():
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


@contextlib.contextmanager
def postgres_database(url, name):
    """A fresh PostgreSQL database `name` on the server of `url`, dropped afterwards (even with
    connections still open); yields its URL."""
    import psycopg

    parts = urllib.parse.urlsplit(url)
    admin = parts._replace(path="/postgres").geturl()
    with psycopg.connect(admin, autocommit=True) as connection:
        connection.execute(f'DROP DATABASE IF EXISTS "{name}"')
        connection.execute(f'CREATE DATABASE "{name}"')
    try:
        yield parts._replace(path=f"/{name}").geturl()
    finally:
        with psycopg.connect(admin, autocommit=True) as connection:
            connection.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


@contextlib.contextmanager
def shared_database(tmp_path):
    """A DATABASE_URL for a fresh database, dropped afterwards."""
    url = os.environ.get("DATABASE_URL", "")
    if url.startswith("postgres"):
        with postgres_database(url, f"two_servers_{os.getpid()}") as fresh:
            yield fresh
    else:
        yield f"sqlite:///{tmp_path / 'shared.sqlite3'}"


def production_env(database_url, static_root, **extra):
    env = {**os.environ}
    for name in ("DJANGO_DEBUG", "DJANGO_SETTINGS_MODULE"):
        env.pop(name, None)
    env.update({
        "DJANGO_ENV": "production",
        "DJANGO_SECRET_KEY": "two-servers-test-key-0123456789-abcdefghijklmnopqrstuvwxyz",
        "DJANGO_ALLOWED_HOSTS": "127.0.0.1,localhost",
        "DJANGO_SSL_REDIRECT": "0",  # plain HTTP on the loopback, as behind a TLS proxy
        "DJANGO_SECURE_COOKIES": "0",
        "DATABASE_URL": database_url,
        "DJANGO_STATIC_ROOT": str(static_root),
        **extra,
    })
    return env


def manage(env, *args):
    subprocess.run([sys.executable, "manage.py", *args], cwd=ROOT, env=env, check=True, capture_output=True, timeout=300)


@contextlib.contextmanager
def gunicorn_servers(env, count=2, workers=1):
    """`count` gunicorn servers (`workers` each) on the same database; yields their base URLs."""
    manage(env, "migrate", "--noinput")
    manage(env, "createcachetable")
    manage(env, "collectstatic", "--noinput")
    ports = [free_port() for _ in range(count)]
    processes = [
        subprocess.Popen(
            [sys.executable, "-m", "gunicorn", "studyapp.wsgi", "--bind", f"127.0.0.1:{port}", "--workers", str(workers)],
            cwd=ROOT, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
        )
        for port in ports
    ]
    try:
        urls = [f"http://127.0.0.1:{port}" for port in ports]
        for url in urls:
            wait_until_up(url)
        yield urls
    finally:
        for process in processes:
            process.terminate()
        for process in processes:
            process.wait(timeout=30)


def seed_learners(env, count, password, prefix="load"):
    """The seed content and `count` learners `{prefix}0`.. with `password`; returns the seed
    question set's id and its number of questions."""
    manage(env, "import_questions", str(ROOT / "fixtures" / "seed.json"))
    script = (
        "from django.contrib.auth.hashers import make_password\n"
        "from quiz.models import QuestionSet, User\n"
        f"hashed = make_password({password!r})\n"
        f"User.objects.bulk_create([User(username=f'{prefix}{{n}}', password=hashed) for n in range({count})])\n"
        "first = QuestionSet.objects.order_by('pk').first()\n"
        "print(first.pk, first.questions.count())\n"
    )
    result = subprocess.run([sys.executable, "manage.py", "shell", "-c", script], cwd=ROOT, env=env,
                            capture_output=True, text=True, check=True)
    set_id, questions = result.stdout.strip().splitlines()[-1].split()
    return int(set_id), int(questions)


def count_rows(env, expression):
    """The integer a Python expression over the models gives, read in the servers' database."""
    script = f"from quiz.models import *\nprint({expression})"
    result = subprocess.run([sys.executable, "manage.py", "shell", "-c", script], cwd=ROOT, env=env,
                            capture_output=True, text=True, check=True)
    return int(result.stdout.strip().splitlines()[-1])


def wait_until_up(url, seconds=30):
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        with contextlib.suppress(OSError):
            with urllib.request.urlopen(url + "/healthz", timeout=2) as response:
                if response.status == 200:
                    return
        time.sleep(0.2)
    raise RuntimeError(f"{url} did not come up")


class Browser:
    """A cookie jar and a way to post forms with their CSRF token, across several servers
    (cookies are per host name, so every server on 127.0.0.1 sees the same ones)."""

    def __init__(self):
        self.jar = http.cookiejar.CookieJar()
        self.opener = urllib.request.build_opener(urllib.request.HTTPCookieProcessor(self.jar), NoRedirect())

    def get(self, url):
        return self._open(urllib.request.Request(url))

    def post_form(self, page_url, data):
        _, html = self.get(page_url)
        token = re.search(r'name="csrfmiddlewaretoken" value="([^"]+)"', html).group(1)
        body = urllib.parse.urlencode({**data, "csrfmiddlewaretoken": token}).encode()
        return self._open(urllib.request.Request(page_url, data=body, headers={"Referer": page_url}))

    def post(self, url, data):
        """A POST with the CSRF cookie's token in the header, as htmx sends it."""
        token = next((cookie.value for cookie in self.jar if cookie.name == "csrftoken"), "")
        body = urllib.parse.urlencode(data).encode()
        return self._open(urllib.request.Request(url, data=body, headers={"X-CSRFToken": token, "Referer": url}))

    def location(self, url, data=None):
        """Where a POST (or a GET without data) redirects to."""
        token = next((cookie.value for cookie in self.jar if cookie.name == "csrftoken"), "")
        body = None if data is None else urllib.parse.urlencode(data).encode()
        request = urllib.request.Request(url, data=body, headers={"X-CSRFToken": token, "Referer": url})
        try:
            with self.opener.open(request, timeout=30) as response:
                return response.status, response.headers.get("Location")
        except urllib.error.HTTPError as error:
            return error.code, error.headers.get("Location")

    def _open(self, request):
        try:
            with self.opener.open(request, timeout=30) as response:
                return response.status, response.read().decode()
        except urllib.error.HTTPError as error:
            return error.code, error.read().decode()


class NoRedirect(urllib.request.HTTPRedirectHandler):
    def redirect_request(self, *args, **kwargs):
        return None  # a 302 is an answer to look at, not to follow

"""Project-wide guards: migrations up to date, every page with one <h1> and a <title>,
production settings refuse to start without a secret key."""

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
from django.core.management import call_command
from django.urls import reverse

from tests.factories import make_question_set, start_attempt
from tests.helpers import answer_all

ROOT = Path(__file__).resolve().parent.parent


def test_no_missing_migrations(db):
    call_command("makemigrations", "--check", "--dry-run", verbosity=0)


def page_urls(learner, question_set):
    open_attempt = start_attempt(learner, question_set)
    slot = open_attempt.slots.get(position=1)
    done = answer_all(start_attempt(learner, make_question_set(questions=2)))
    return [
        reverse("home"),
        reverse("attempt_list"),
        reverse("attempt_question", args=[open_attempt.pk, slot.position]),
        reverse("attempt_results", args=[done.pk]),
    ]


def assert_one_h1_and_a_title(html):
    assert len(re.findall(r"<h1[ >]", html)) == 1
    assert re.search(r"<title>[^<]+</title>", html)


def test_every_learner_page_has_one_h1_and_a_title(learner_client, learner, question_set):
    for url in page_urls(learner, question_set):
        response = learner_client.get(url)
        assert response.status_code == 200, url
        assert_one_h1_and_a_title(response.content.decode())


@pytest.mark.parametrize(
    "name", ["login", "signup", "home", "password_reset", "password_reset_done", "password_reset_complete"]
)
def test_every_public_page_has_one_h1_and_a_title(client, db, name):
    assert_one_h1_and_a_title(client.get(reverse(name)).content.decode())


def test_unknown_pages_are_a_404_not_an_error(learner_client):
    for url in ["/attempts/999/", "/attempts/999/questions/1/", "/attempts/999/results/", "/sets/x/start/"]:
        assert learner_client.get(url).status_code in (404, 405)


def test_production_refuses_to_start_without_a_secret_key():
    env = {**os.environ, "DJANGO_ENV": "production", "DJANGO_SECRET_KEY": "", "DJANGO_SETTINGS_MODULE": "studyapp.settings"}
    result = subprocess.run(
        [sys.executable, "-c", "import django; django.setup()"], cwd=ROOT, env=env, capture_output=True, text=True
    )

    assert result.returncode != 0
    assert "DJANGO_SECRET_KEY must be set" in result.stderr


def test_production_static_files_are_hashed_and_compressed(tmp_path):
    env = {
        **os.environ,
        "DJANGO_ENV": "production",
        "DJANGO_SECRET_KEY": "test-only",
        "DJANGO_ALLOWED_HOSTS": "example.com",
        "DJANGO_STATIC_ROOT": str(tmp_path),
    }
    result = subprocess.run(
        [sys.executable, "manage.py", "collectstatic", "--noinput"], cwd=ROOT, env=env, capture_output=True, text=True
    )

    assert result.returncode == 0, result.stderr
    assert list(tmp_path.glob("css/app.*.css.gz")), "hashed, compressed stylesheet"
    assert (tmp_path / "staticfiles.json").exists()


# --- Only Django's public API ----------------------------------------------------------------------

# Query internals and private machinery the app must never reach for (Model._meta is documented).
PRIVATE_ATTRIBUTES = {
    "_chain", "_clone", "_fetch_all", "_result_cache", "_iterable_class", "_prefetch_related_lookups",
    "klass_info", "get_related_populators", "get_compiler", "execute_wrappers", "run_on_commit",
    "CSRF_SECRET_LENGTH", "CSRF_ALLOWED_CHARS",  # the CSRF token's private format
}


def private_uses(path):
    """Every private Django name `path` imports or query internal it reads, one line each."""
    import ast

    tree = ast.parse(path.read_text(), filename=str(path))
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and (node.module or "").split(".")[0] == "django":
            names = [(node.module, alias.name) for alias in node.names]
        elif isinstance(node, ast.Import):
            names = [(alias.name, "") for alias in node.names if alias.name.split(".")[0] == "django"]
        else:
            if isinstance(node, ast.Attribute) and node.attr in PRIVATE_ATTRIBUTES:
                found.append(f"{path.name}:{node.lineno}: .{node.attr}")
            continue
        for module, name in names:
            parts = module.split(".") + ([name] if name else [])
            private_module = module.startswith(("django.db.models.sql", "django.db.backends"))
            if any(part.startswith("_") for part in parts) or private_module or name in PRIVATE_ATTRIBUTES:
                found.append(f"{path.name}:{node.lineno}: {module} {name}".rstrip())
    return found


def test_the_code_uses_no_private_django_name_nor_query_internals():
    sources = [path for folder in ("quiz", "studyapp", "bench") for path in (ROOT / folder).rglob("*.py")]
    assert [use for path in sources for use in private_uses(path)] == []


def test_the_guard_finds_private_imports_and_query_internals(tmp_path):
    sample = tmp_path / "sample.py"
    sample.write_text(
        "from django.db.models.sql import compiler\n"
        "from django.middleware.csrf import _unmask_cipher_token\n"
        "from django.db.models import Q\n"
        "rows = queryset._chain().query\n"
        "fields = model._meta.get_fields()\n"
    )
    assert private_uses(sample) == [
        "sample.py:1: django.db.models.sql compiler",
        "sample.py:2: django.middleware.csrf _unmask_cipher_token",
        "sample.py:4: ._chain",
    ]

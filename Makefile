# `make run` and `make test` work on a fresh machine; `make install` is the idempotent first half of both.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed
HOST ?= 127.0.0.1
PORT ?= 8000
CHROMIUM ?= /usr/bin/chromium

.PHONY: install run test migrate seed fixture clean serve loadtest bench explain screenshots

install: $(STAMP)

# Re-installs only when pyproject.toml changes.
$(STAMP): pyproject.toml
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e '.[test]'
	touch $(STAMP)

migrate: install
	$(BIN)/python manage.py migrate --noinput
	$(BIN)/python manage.py createcachetable
	$(BIN)/python manage.py lti_key

# Loading the seed is idempotent: the importer updates rows in place by their stable keys.
seed: migrate
	$(BIN)/python manage.py import_questions fixtures/seed.json

run: seed
	@echo ""
	@echo "  Certify is starting: open http://$(HOST):$(PORT)/ in a browser."
	@echo "  First: sign up (the Sign up link in the menu), then press the button under \"What to do now\"."
	@echo "  Another port: make run PORT=8080.  Stop with Ctrl+C."
	@echo ""
	$(BIN)/python manage.py runserver $(HOST):$(PORT)

test: install
	$(BIN)/python -m pytest $(PYTEST_ARGS)

# Production: gunicorn on the production settings (DJANGO_ENV=production and DJANGO_SECRET_KEY
# must be set). Static files, migrations and the cache table first, then `check --deploy`,
# which stops here on any warning. Workers, threads and timeouts come from the environment.
# Threaded workers (gthread): a sync worker only tells gunicorn it is alive between requests, so
# a long streamed download ("Download my data" of a million reviews takes a minute) was killed at
# WEB_TIMEOUT and reached the learner cut short; a thread streaming it does not stop the beat.
WEB_WORKERS ?= 2
WEB_THREADS ?= 4
WEB_TIMEOUT ?= 30
serve: install
	DJANGO_ENV=$${DJANGO_ENV:-production} $(BIN)/python manage.py collectstatic --noinput
	DJANGO_ENV=$${DJANGO_ENV:-production} $(BIN)/python manage.py migrate --noinput
	DJANGO_ENV=$${DJANGO_ENV:-production} $(BIN)/python manage.py createcachetable
	DJANGO_ENV=$${DJANGO_ENV:-production} $(BIN)/python manage.py lti_key
	DJANGO_ENV=$${DJANGO_ENV:-production} $(BIN)/python manage.py check --deploy --fail-level WARNING
	DJANGO_ENV=$${DJANGO_ENV:-production} $(BIN)/gunicorn studyapp.wsgi --bind $(HOST):$(PORT) \
		--workers $(WEB_WORKERS) --worker-class gthread --threads $(WEB_THREADS) --timeout $(WEB_TIMEOUT) \
		--access-logfile - --error-logfile -

# N learners answering against gunicorn on PostgreSQL (a database of its own, dropped after):
# prints 5xx, answers sent vs stored, p50/p95. LOADTEST_USERS, LOADTEST_SECONDS, WEB_WORKERS.
loadtest: install
	$(BIN)/python -m pip install --quiet -e '.[test,load]'
	$(BIN)/python loadtest/run.py

# Each page's speed as a ratio to a bare signed-in page, its queries and server time, on SQLite
# and PostgreSQL at BENCH_ANSWERS answers (default "10000 1000000"). A benchmark: it prints.
bench: install
	$(BIN)/python bench/run.py

# EXPLAIN every query of every page on a seeded PostgreSQL DATABASE_URL; fails on a sequential
# scan of a table that grows with history. Writes nothing that lasts (one rolled-back transaction).
explain: install
	$(BIN)/python bench/explain.py

# The README's screenshots (docs/screenshots/*.png): the browser test that walks those pages,
# told to write them. Plain test runs walk the same pages and write nothing.
screenshots: install
	SCREENSHOTS=1 $(BIN)/python -m pytest -q -p no:cacheprovider tests/test_browser_screenshots.py

# Rebuild the committed JSON fixture from the source documents (a test checks they agree).
fixture: install
	$(BIN)/python -m scripts.build_fixture

clean:
	rm -rf $(VENV) staticfiles .pytest_cache

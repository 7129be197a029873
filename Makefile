# `make run` and `make test` work on a fresh machine; `make install` is the idempotent first half of both.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed
HOST ?= 127.0.0.1
PORT ?= 8000
CHROMIUM ?= /usr/bin/chromium

.PHONY: install run test migrate seed fixture clean

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

# Loading the seed is idempotent: the importer updates rows in place by their stable keys.
seed: migrate
	$(BIN)/python manage.py import_questions fixtures/seed.json

run: seed
	$(BIN)/python manage.py runserver $(HOST):$(PORT)

test: install
	$(BIN)/python -m pytest $(PYTEST_ARGS)

# Rebuild the committed JSON fixture from the source documents (a test checks they agree).
fixture: install
	$(BIN)/python -m scripts.build_fixture

clean:
	rm -rf $(VENV) staticfiles .pytest_cache

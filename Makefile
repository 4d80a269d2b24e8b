# Taxonomist: `make run` serves the app with demo data, `make test` runs the whole suite.
PYTHON ?= python3
VENV ?= .venv
PY := $(VENV)/bin/python
PORT ?= 8000

.PHONY: run test lint format bench install install-dev browser clean-db

$(VENV)/.installed: requirements.txt
	@test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip
	$(PY) -m pip install --quiet -r requirements.txt
	@touch $@

$(VENV)/.installed-dev: requirements.txt requirements-dev.txt $(VENV)/.installed
	$(PY) -m pip install --quiet -r requirements-dev.txt
	@touch $@

install: $(VENV)/.installed
install-dev: $(VENV)/.installed-dev

## run: install, migrate, load taxonomies + demo study, serve http://127.0.0.1:$(PORT)
run: $(VENV)/.installed
	@DEBUG=$${DEBUG:-1} $(PY) manage.py migrate --noinput -v 0
	@DEBUG=$${DEBUG:-1} PORT=$(PORT) $(PY) manage.py seed_demo
	DEBUG=$${DEBUG:-1} $(PY) manage.py runserver 127.0.0.1:$(PORT)

## test: install test dependencies and run the whole suite (PostgreSQL when DATABASE_URL is set)
test: $(VENV)/.installed-dev
	$(PY) -m pytest $(PYTEST_ARGS)

lint: $(VENV)/.installed-dev
	$(VENV)/bin/ruff check .
	$(VENV)/bin/ruff format --check .

format: $(VENV)/.installed-dev
	$(VENV)/bin/ruff check --fix .
	$(VENV)/bin/ruff format .

## browser: install Debian's Chromium for the end-to-end tests
browser:
	bash scripts/install-browser.sh

## bench: every benchmark on the local PostgreSQL (BENCH_DATABASE_URL overrides); results in docs/benchmarks.md
bench: $(VENV)/.installed-dev
	bash bench/run_all.sh

# Taxonomist: `make run` serves the app with demo data, `make test` runs the whole suite.
PYTHON ?= python3
VENV ?= .venv
PY := $(VENV)/bin/python
PORT ?= 8000

.PHONY: run test lint format bench install install-dev browser latex clean-db pins

# Pinned, hashed installs: requirements*.txt are compiled from requirements*.in by `make pins`.
# The first install takes a few minutes: it says so, and pip shows each package as it arrives.
$(VENV)/.installed: requirements.txt
	@test -x $(PY) || (echo "Creating the virtual environment $(VENV) ..." && $(PYTHON) -m venv $(VENV))
	@echo "Installing Taxonomist's dependencies into $(VENV) (the first time takes a few minutes) ..."
	@$(PY) -m pip install --quiet --upgrade pip
	@{ $(PY) -m pip install --require-hashes -r requirements.txt 2>&1; echo $$? > $(VENV)/.pip-status; } \
		| grep --line-buffered -E "^(Collecting|Installing|Successfully|ERROR)"; \
		status=$$(cat $(VENV)/.pip-status); rm -f $(VENV)/.pip-status; exit $$status
	@touch $@
	@echo "Dependencies installed."

$(VENV)/.installed-dev: requirements.txt requirements-dev.txt $(VENV)/.installed
	@echo "Installing the test dependencies into $(VENV) ..."
	$(PY) -m pip install --quiet --require-hashes -r requirements-dev.txt
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

## latex: install Debian's pdflatex for the test that compiles an exported LaTeX table
latex:
	bash scripts/install-latex.sh

## bench: every benchmark on the local PostgreSQL (BENCH_DATABASE_URL overrides); results in docs/benchmarks.md
bench: $(VENV)/.installed-dev
	bash bench/run_all.sh

## pins: recompile requirements*.txt (exact versions with hashes) from requirements*.in with pip-tools
## (PINS_ARGS="--upgrade-package numpy" moves one package; PINS_ARGS=--upgrade moves all)
PIP_TOOLS_VERSION := 7.6.2
PINS_VENV := .venv-pins
PIP_COMPILE := $(PINS_VENV)/bin/pip-compile --quiet --generate-hashes --allow-unsafe --strip-extras \
	--no-emit-index-url --no-emit-find-links $(PINS_ARGS)
pins:
	@test -x $(PINS_VENV)/bin/pip-compile || ($(PYTHON) -m venv $(PINS_VENV) \
		&& $(PINS_VENV)/bin/pip install --quiet pip-tools==$(PIP_TOOLS_VERSION))
	$(PIP_COMPILE) --output-file requirements.txt requirements.in
	$(PIP_COMPILE) --output-file requirements-dev.txt requirements-dev.in

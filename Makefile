# One command each for the newcomer: `make demo` (the main job) and `make test` (the whole suite).
# Both create the virtualenv and install everything first.
PYTHON ?= python3
VENV ?= .venv
PY := $(VENV)/bin/python
HOST ?= 127.0.0.1
PORT ?= 8080

.PHONY: setup system-deps demo test bench clean constraints

setup: $(VENV)/.installed

$(VENV)/.installed: pyproject.toml constraints.txt
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install -q --upgrade pip
	$(PY) -m pip install -q -c constraints.txt -e '.[dev]'
	touch $@

# The newest versions pyproject.toml allows, installed into .venv and written to constraints.txt (then run
# `make test` and the evaluation sets: docs/vision.md, "OpenCV version").
constraints:
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install -q --upgrade pip
	$(PY) -m pip install -q --upgrade --upgrade-strategy eager -e '.[dev]'
	grep '^#' constraints.txt > constraints.new
	$(PY) -m pip freeze --exclude-editable >> constraints.new
	mv constraints.new constraints.txt
	touch $(VENV)/.installed

# Debian packages the tests use (headless Chromium for the dashboard tests, socat for serial
# reconnect tests). Installed when we are root on Debian; otherwise the script says what is missing.
system-deps:
	bash scripts/system-deps.sh

demo: setup
	$(VENV)/bin/tableref demo --host $(HOST) --port $(PORT)

test: setup system-deps
	$(PY) -m pytest -q

bench: setup
	$(PY) -m bench

clean:
	rm -rf $(VENV) .pytest_cache

# One command each for the newcomer: `make demo` (the main job) and `make test` (the whole suite).
# Both create the virtualenv and install everything first.
PYTHON ?= python3
VENV ?= .venv
PY := $(VENV)/bin/python
HOST ?= 127.0.0.1
PORT ?= 8080

.PHONY: setup system-deps demo test bench clean

setup: $(VENV)/.installed

$(VENV)/.installed: pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install -q --upgrade pip
	$(PY) -m pip install -q -e '.[dev]'
	touch $@

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

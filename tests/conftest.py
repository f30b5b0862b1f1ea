"""Shared test set-up: fail any test that logs an ERROR it did not ask for (a hidden failure)."""

from __future__ import annotations

import logging
import os

import pytest
from hypothesis import settings

# CI must not turn red on a new random example nobody is there to read: there the property tests
# replay a fixed set of examples (still hundreds of positions). Locally they explore new ones every run.
settings.register_profile("ci", derandomize=True, print_blob=True)
if os.environ.get("CI", "").lower() in ("1", "true", "yes"):
    settings.load_profile("ci")


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption("--long", action="store_true", default=False,
                     help="soak mode: the engines' self-check tests play thousands of games instead of a few seconds' worth")


@pytest.hookimpl(tryfirst=True)
def pytest_configure(config: pytest.Config) -> None:
    if config.getoption("--long", default=False):
        config.option.timeout = 0  # a soak run takes as long as it takes; pytest-timeout reads this after us


@pytest.fixture(scope="session")
def long_run(request: pytest.FixtureRequest) -> bool:
    """True under ``--long``: tests that sample random games play many more of them."""
    return bool(request.config.getoption("--long"))


class _ErrorCatcher(logging.Handler):
    def __init__(self) -> None:
        super().__init__(level=logging.ERROR)
        self.records: list[logging.LogRecord] = []

    def emit(self, record: logging.LogRecord) -> None:
        self.records.append(record)


@pytest.fixture(autouse=True)
def _no_unexpected_error_logs(request: pytest.FixtureRequest):
    catcher = _ErrorCatcher()
    root = logging.getLogger()
    root.addHandler(catcher)
    yield
    root.removeHandler(catcher)
    if request.node.get_closest_marker("allow_error_logs") is None and catcher.records:
        lines = "\n".join(f"{r.name}: {r.getMessage()}" for r in catcher.records)
        pytest.fail(f"unexpected ERROR log lines:\n{lines}")

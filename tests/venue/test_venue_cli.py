"""``tableref venue`` as a process (against a real mosquitto: it prints its address, serves the
venue page, stops cleanly on SIGTERM) and ``tableref venue import`` (exported records into the
results, once; refusals on stderr)."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import urllib.request
from pathlib import Path

import pytest

from mqtt_testkit import poll
from tableref.cli import main

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"


def test_the_venue_command_serves_and_stops_cleanly(tmp_path: Path, broker_factory, tables) -> None:
    broker = broker_factory()
    tables.runtime(broker.port, "t1", "Table 1")
    proc = subprocess.Popen([sys.executable, "-m", "tableref", "venue", "--broker", f"127.0.0.1:{broker.port}", "--host", "127.0.0.1",
                             "--port", "0", "--data-dir", str(tmp_path / "venue"), "--name", "Hall C"],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=dict(os.environ, PYTHONUNBUFFERED="1"))
    try:
        assert proc.stdout is not None
        first = proc.stdout.readline()
        assert first.startswith(f"venue: following 127.0.0.1:{broker.port} under tableref/+/"), first
        url = proc.stdout.readline().strip()
        assert url.startswith("http://127.0.0.1:")

        def view() -> dict:
            with urllib.request.urlopen(url + "api/venue", timeout=5) as resp:
                return json.loads(resp.read())

        poll(lambda: [t["name"] for t in view()["tiles"]] == ["Table 1"], 10.0, what="the table on the venue page")
        assert view()["venue"]["name"] == "Hall C" and view()["broker"]["state"] == "connected"
        proc.send_signal(signal.SIGTERM)
        assert proc.wait(15) == 0
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait(5)
    assert (tmp_path / "venue" / "venue-results.sqlite").exists()


def test_import_records(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    data = str(tmp_path / "venue")
    args = ["venue", "import", str(EXAMPLES / "china-4p-complete.json"), str(EXAMPLES / "china-5p-fortress-complete.json"),
            "--data-dir", data, "--table", "Table 9", "--names", "blue=Alice,green=Bob", "--names", "red=Rae", "--finished", "2026-11-20"]
    assert main(args) == 0
    lines = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert [line["status"] for line in lines] == ["added as result 1", "added as result 2"]
    assert "Alice" in lines[0]["players"] and "Rae" in lines[0]["players"]
    assert main(args) == 0
    assert all(json.loads(line)["status"] == "already in the results" for line in capsys.readouterr().out.splitlines())

    assert main(["venue", "import", str(EXAMPLES / "china-3p-illegal.json"), "--data-dir", data, "--table", "x",
                 "--finished", "2026-11-20"]) == 1
    assert "illegal" in capsys.readouterr().err
    assert main(["venue", "import", str(EXAMPLES / "china-4p-complete.json"), "--data-dir", data, "--names", "blue"]) == 2
    assert "COLOUR=NAME" in capsys.readouterr().err


@pytest.mark.parametrize("args, words", [
    (["--broker", "a:b"], "HOST or HOST:PORT"),
    (["--broker", "h:70000"], "HOST or HOST:PORT"),
    (["--topic-prefix", "a/#"], "wildcard"),
    (["--ca-file", "ca.pem"], "--tls"),
    (["--lang", "fr"], "--lang"),
])
def test_bad_venue_arguments_are_one_line(args: list[str], words: str, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["venue", *args]) == 2
    err = capsys.readouterr().err.strip()
    assert words in err and len(err.splitlines()) == 1

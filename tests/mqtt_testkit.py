"""A real mosquitto for the MQTT tests (table publisher and venue): a broker process on a free
port that can be killed and started again, and a listener that records what it receives. A module
with a unique name: the tests import it directly (``tests/`` is on the path through its conftest)."""

from __future__ import annotations

import json
import os
import shutil
import socket
import subprocess
import threading
from pathlib import Path
from typing import Any, Callable, Iterator

import paho.mqtt.client as mqtt
import pytest

from tableref.demo import wait_until


def poll(cond: Callable[[], bool], timeout: float = 5.0, what: str = "condition") -> None:
    assert wait_until(cond, timeout, poll=0.01), f"{what} not met within {timeout} s"


def mosquitto_binary() -> str:
    found = shutil.which("mosquitto") or next((p for p in ("/usr/sbin/mosquitto", "/usr/local/sbin/mosquitto") if os.access(p, os.X_OK)), None)
    if found is None:
        message = "mosquitto is not installed (sudo apt-get install mosquitto; scripts/system-deps.sh does it)"
        if os.environ.get("CI", "").lower() in ("1", "true", "yes"):
            pytest.fail(message)
        pytest.skip(message)
    return found


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Broker:
    """One mosquitto process on a fixed port; can be killed and started again on the same port."""

    def __init__(self, tmp: Path, *, users: dict[str, str] | None = None, port: int | None = None) -> None:
        self.binary = mosquitto_binary()
        self.tmp = tmp
        self.port = port or free_port()
        self.log: Any = None
        self.users = users
        self.proc: subprocess.Popen | None = None
        self.conf = tmp / "mosquitto.conf"
        self.passwords = tmp / "passwords"
        lines = [f"listener {self.port} 127.0.0.1", "persistence false"]
        if os.geteuid() == 0:
            lines.append("user root")  # as root mosquitto would switch to 'mosquitto', who cannot read our tmp files
        if users is None:
            lines.append("allow_anonymous true")
        else:
            lines += ["allow_anonymous false", f"password_file {self.passwords}"]
            self.set_users(users)
        self.conf.write_text("\n".join(lines) + "\n")

    def set_users(self, users: dict[str, str]) -> None:
        """Rewrite the password file (mosquitto_passwd) and make a running broker reload it."""
        self.passwords.write_text("")
        tool = shutil.which("mosquitto_passwd") or "/usr/bin/mosquitto_passwd"
        for user, password in users.items():
            subprocess.run([tool, "-b", str(self.passwords), user, password], check=True, capture_output=True)
        if self.proc is not None and self.proc.poll() is None:
            self.proc.send_signal(1)  # SIGHUP: reload the password file

    def start(self) -> "Broker":
        if self.log is None:
            self.log = open(self.tmp / "mosquitto.log", "ab")
        self.proc = subprocess.Popen([self.binary, "-c", str(self.conf)], stdout=subprocess.DEVNULL, stderr=self.log)

        def listening() -> bool:
            assert self.proc is not None
            if self.proc.poll() is not None:
                raise AssertionError(f"mosquitto exited: {(self.tmp / 'mosquitto.log').read_text()[-500:]}")
            try:
                socket.create_connection(("127.0.0.1", self.port), timeout=0.2).close()
                return True
            except OSError:
                return False

        poll(listening, 5.0, "mosquitto listening")
        return self

    def kill(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait(5)
        self.proc = None

    def close(self) -> None:
        self.kill()
        if self.log is not None:
            self.log.close()
            self.log = None


@pytest.fixture
def broker_factory(tmp_path: Path) -> Iterator[Callable[..., Broker]]:
    made: list[Broker] = []

    def make(**kw: Any) -> Broker:
        folder = tmp_path / f"broker{len(made)}"
        folder.mkdir()
        b = Broker(folder, **kw)
        made.append(b)
        return b.start()

    yield make
    for b in made:  # also when the test failed
        b.close()


class Listener:
    """A scoreboard: a paho client that records every message under a topic filter."""

    def __init__(self, port: int, topic: str, *, user: tuple[str, str] | None = None, name: str = "listener") -> None:
        self.messages: list[Any] = []
        self.lock = threading.Lock()
        self.subscribed = threading.Event()
        self.client = mqtt.Client(mqtt.CallbackAPIVersion.VERSION2, client_id=f"{name}-{os.getpid()}-{id(self)}")
        if user is not None:
            self.client.username_pw_set(*user)
        self.client.on_connect = lambda c, u, f, rc, p: (not rc.is_failure) and c.subscribe(topic, qos=1)
        self.client.on_subscribe = lambda *a: self.subscribed.set()
        self.client.on_message = self._on_message
        self.client.connect("127.0.0.1", port, keepalive=10)
        self.client.loop_start()
        assert self.subscribed.wait(5), "the listener did not subscribe"

    def _on_message(self, client: Any, userdata: Any, msg: Any) -> None:
        with self.lock:
            self.messages.append((msg.topic, msg.payload, msg.retain))

    def on(self, topic: str) -> list[tuple[bytes, bool]]:
        with self.lock:
            return [(p, r) for t, p, r in self.messages if t == topic]

    def json(self, topic: str) -> list[dict[str, Any]]:
        return [json.loads(p) for p, _ in self.on(topic)]

    def close(self) -> None:
        self.client.disconnect()
        self.client.loop_stop()


@pytest.fixture
def listeners() -> Iterator[Callable[..., Listener]]:
    made: list[Listener] = []

    def make(*a: Any, **kw: Any) -> Listener:
        made.append(Listener(*a, **kw))
        return made[-1]

    yield make
    for item in made:
        item.close()

"""A small stand-in for systemd, for a machine where systemd is not PID 1 (a container): it reads a
unit file and runs its ``ExecStart`` with the ``[Service]`` semantics the tableref unit relies on.

Honoured: ``Type=notify`` (start-up ends with ``READY=1`` on ``$NOTIFY_SOCKET``, a unix datagram
socket; ``NotifyAccess=main`` checked with the sender's credentials), ``TimeoutStartSec``,
``WatchdogSec`` (``$WATCHDOG_USEC`` passed; no ``WATCHDOG=1`` for that long is a failure: the
``WatchdogSignal``, SIGABRT, then SIGKILL), ``Restart=no|on-failure|always`` with systemd's idea
of failure (non-zero exit, an unclean signal such as SIGKILL or SIGABRT, a start or watchdog
timeout), ``RestartSec``, ``StartLimitIntervalSec``/``StartLimitBurst``, ``KillSignal`` and
``TimeoutStopSec`` on stop (``KillMode=mixed``: the main process first, then the whole group),
``Environment``, ``WorkingDirectory``; stdout and stderr go to a log file (the journal).
Not honoured (said here, not hidden): ``User``/``Group`` and the sandboxing options — the
process runs as the caller; those are checked by ``systemd-analyze verify`` instead.

``overrides`` play the part of a drop-in (``systemctl edit``): e.g. a short ``WatchdogSec`` in a test.
"""

from __future__ import annotations

import os
import re
import shlex
import signal
import socket
import struct
import subprocess
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path

CLEAN_SIGNALS = {signal.SIGHUP, signal.SIGINT, signal.SIGTERM, signal.SIGPIPE}  # systemd's "clean" exit signals
_SPAN = re.compile(r"(\d+(?:\.\d+)?)\s*(ms|msec|s|sec|min|m|h)?")


def timespan(text: str) -> float:
    """systemd time spans as seconds: "30", "2s", "500ms", "1min 30s"."""
    total, pos = 0.0, 0
    for m in _SPAN.finditer(text.strip()):
        scale = {None: 1, "s": 1, "sec": 1, "ms": 1e-3, "msec": 1e-3, "min": 60, "m": 60, "h": 3600}[m.group(2)]
        total += float(m.group(1)) * scale
        pos += 1
    if not pos:
        raise ValueError(f"not a time span: {text!r}")
    return total


@dataclass
class Unit:
    path: Path
    unit: dict[str, str]
    service: dict[str, list[str]]

    @classmethod
    def load(cls, path: Path, overrides: dict[str, str] | None = None) -> "Unit":
        sections: dict[str, dict[str, list[str]]] = {}
        current = None
        for raw in path.read_text().splitlines():
            line = raw.strip()
            if not line or line.startswith(("#", ";")):
                continue
            if line.startswith("[") and line.endswith("]"):
                current = sections.setdefault(line[1:-1], {})
                continue
            key, _, value = line.partition("=")
            assert current is not None, f"{path}: {line!r} before any section"
            current.setdefault(key.strip(), []).append(value.strip())
        service = sections.get("Service", {})
        for k, v in (overrides or {}).items():
            (sections.setdefault("Unit", {}) if k.startswith("StartLimit") else service)[k] = [v]
        return cls(path, {k: v[-1] for k, v in sections.get("Unit", {}).items()}, service)

    def get(self, key: str, default: str | None = None) -> str | None:
        values = self.service.get(key)
        return values[-1] if values else default

    @property
    def argv(self) -> list[str]:
        return shlex.split(self.get("ExecStart") or "")

    @property
    def environment(self) -> dict[str, str]:
        env: dict[str, str] = {}
        for line in self.service.get("Environment", []):
            for item in shlex.split(line):
                k, _, v = item.partition("=")
                env[k] = v
        return env

    def seconds(self, key: str, default: float) -> float:
        value = self.get(key)
        return default if value is None else timespan(value)


@dataclass
class Event:
    at: float
    kind: str  # start, ready, watchdog-ping, exit, watchdog-timeout, start-timeout, restart, give-up, stop
    pid: int | None = None
    detail: str = ""


@dataclass
class Supervisor:
    """Runs one unit until ``stop()``; ``events`` is the story (what ``systemctl status`` and the journal tell)."""

    unit: Unit
    workdir: Path
    events: list[Event] = field(default_factory=list)

    def __post_init__(self) -> None:
        self.log_path = self.workdir / "journal.log"
        self.sock_path = str(self.workdir / "notify.sock")
        self._sock = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
        self._sock.bind(self.sock_path)
        self._sock.setsockopt(socket.SOL_SOCKET, socket.SO_PASSCRED, 1)
        self._sock.settimeout(0.05)
        self._stopping = threading.Event()
        self._cond = threading.Condition()
        self.proc: subprocess.Popen | None = None
        self._thread = threading.Thread(target=self._run, name="supervisor", daemon=True)

    # -- the story ---------------------------------------------------------------------------------
    def _note(self, kind: str, pid: int | None = None, detail: str = "") -> None:
        with self._cond:
            self.events.append(Event(time.monotonic(), kind, pid, detail))
            self._cond.notify_all()

    def wait_for(self, kind: str, count: int = 1, timeout: float = 60.0) -> list[Event]:
        with self._cond:
            ok = self._cond.wait_for(lambda: len([e for e in self.events if e.kind == kind]) >= count, timeout)
            assert ok, f"no {count} x {kind} within {timeout} s: {[(e.kind, e.pid, e.detail) for e in self.events]}\n" \
                       + (self.log_path.read_text()[-3000:] if self.log_path.exists() else "")
            return [e for e in self.events if e.kind == kind]

    @property
    def main_pid(self) -> int | None:
        return self.proc.pid if self.proc is not None and self.proc.poll() is None else None

    # -- running -------------------------------------------------------------------------------------
    def start(self) -> "Supervisor":
        self._thread.start()
        return self

    def _spawn(self) -> subprocess.Popen:
        env = dict(os.environ, **self.unit.environment, NOTIFY_SOCKET=self.sock_path)
        env.pop("WATCHDOG_USEC", None)
        watchdog = self.unit.seconds("WatchdogSec", 0)
        if watchdog:
            env["WATCHDOG_USEC"] = str(int(watchdog * 1e6))
        log = open(self.log_path, "a")
        try:
            return subprocess.Popen(self.unit.argv, cwd=self.unit.get("WorkingDirectory") or None, env=env, stdout=log,
                                    stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL, start_new_session=True)
        finally:
            log.close()

    def _messages(self) -> list[tuple[int, dict[str, str]]]:
        out = []
        while True:
            try:
                data, anc, _flags, _addr = self._sock.recvmsg(4096, socket.CMSG_SPACE(12))
            except (socket.timeout, BlockingIOError):
                return out
            pid = 0
            for level, kind, payload in anc:
                if level == socket.SOL_SOCKET and kind == socket.SCM_CREDENTIALS:
                    pid = struct.unpack("iII", payload[:12])[0]
            out.append((pid, dict(line.split("=", 1) for line in data.decode().split("\n") if "=" in line)))
            self._sock.settimeout(0)

    def _run_once(self) -> str:
        """Start the process and supervise it until it ends; systemd's result for it."""
        start_timeout = self.unit.seconds("TimeoutStartSec", 90)
        watchdog = self.unit.seconds("WatchdogSec", 0)
        notify = self.unit.get("Type", "simple") == "notify"
        proc = self.proc = self._spawn()
        self._note("start", proc.pid)
        started = time.monotonic()
        ready = not notify
        last_ping = started
        result = None
        while True:
            self._sock.settimeout(0.05)
            for pid, msg in self._messages():
                if self.unit.get("NotifyAccess", "main") == "main" and pid != proc.pid:
                    self._note("ignored", pid, f"not the main process: {msg}")
                    continue
                if msg.get("READY") == "1" and not ready:
                    ready = True
                    last_ping = time.monotonic()
                    self._note("ready", proc.pid, msg.get("STATUS", ""))
                if msg.get("WATCHDOG") == "1":
                    last_ping = time.monotonic()
                    self._note("watchdog-ping", proc.pid)
                if msg.get("STOPPING") == "1":
                    self._note("stopping", proc.pid)
            code = proc.poll()
            if code is not None:
                self._note("exit", proc.pid, f"signal {signal.Signals(-code).name}" if code < 0 else f"code {code}")
                if result is not None:
                    return result
                if code == 0 or (code < 0 and signal.Signals(-code) in CLEAN_SIGNALS):
                    return "success"
                return "signal" if code < 0 else "exit-code"
            now = time.monotonic()
            if result is None and not self._stopping.is_set():
                if not ready and now - started > start_timeout:
                    result = "timeout"
                    self._note("start-timeout", proc.pid)
                    self._kill(proc, signal.SIGTERM)
                elif ready and watchdog and now - last_ping > watchdog:
                    result = "watchdog"
                    self._note("watchdog-timeout", proc.pid)
                    self._kill(proc, signal.SIGABRT)  # WatchdogSignal

    def _kill(self, proc: subprocess.Popen, sig: int) -> None:
        """KillMode=mixed: ``sig`` to the main process, SIGKILL to the group after TimeoutStopSec."""
        try:
            os.kill(proc.pid, sig)
        except ProcessLookupError:
            return

        def finish() -> None:
            try:
                proc.wait(self.unit.seconds("TimeoutStopSec", 90))
            except subprocess.TimeoutExpired:
                self._note("stop-timeout", proc.pid)
            try:
                os.killpg(proc.pid, signal.SIGKILL)
            except (ProcessLookupError, PermissionError):
                pass

        threading.Thread(target=finish, daemon=True).start()

    def _run(self) -> None:
        policy = self.unit.get("Restart", "no")
        interval = timespan(self.unit.unit.get("StartLimitIntervalSec", "10"))
        burst = int(self.unit.unit.get("StartLimitBurst", "5"))
        starts: list[float] = []
        while not self._stopping.is_set():
            now = time.monotonic()
            starts = [t for t in starts if now - t < interval] + [now]
            if len(starts) > burst:
                self._note("give-up", None, "start-limit-hit")
                return
            result = self._run_once()
            if self._stopping.is_set():
                return
            failed = result != "success"
            if policy == "always" or (policy == "on-failure" and failed):
                if self._stopping.wait(self.unit.seconds("RestartSec", 0.1)):
                    return
                self._note("restart", None, result)
                continue
            self._note("inactive", None, result)
            return

    def stop(self) -> float:
        """``systemctl stop``: KillSignal, then SIGKILL after TimeoutStopSec; seconds until the process was gone."""
        self._stopping.set()
        t0 = time.monotonic()
        proc = self.proc
        if proc is not None and proc.poll() is None:
            sig = getattr(signal, self.unit.get("KillSignal", "SIGTERM") or "SIGTERM")
            self._note("stop", proc.pid)
            self._kill(proc, sig)
            try:
                proc.wait(self.unit.seconds("TimeoutStopSec", 90) + 5)
            except subprocess.TimeoutExpired:
                pass
        took = time.monotonic() - t0
        self._thread.join(10)
        self._sock.close()
        return took


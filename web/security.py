"""Who may change things at the table: the admin PIN, login rate limiting, sessions and CSRF.

* Viewing is open on the local network. Every change needs an admin session, obtained by
  entering the table's PIN; the PIN is set on first run and stored only as a salted scrypt hash.
* Failed PIN attempts are limited per client address and across all clients (someone guessing
  from many addresses), with a lock-out that doubles on every further failure.
* Every state-changing request carries the session's CSRF token in ``X-CSRF-Token``.

Time is injected (``clock``) so tests drive the lock-outs without sleeping.
"""

from __future__ import annotations

import json
import os
import re
import secrets
import threading
from collections import deque
from dataclasses import dataclass
from pathlib import Path
from typing import Callable

from werkzeug.security import check_password_hash, generate_password_hash

from scorer.core import safejson
from scorer.core.types import Message
from web.errors import BadInput, TooManyAttempts

PIN_PATTERN = re.compile(r"^[0-9]{4,12}$")


def write_private(path: Path, data: bytes) -> None:
    """Write a file readable only by us, atomically (a power cut leaves the old or the new one)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(f".{path.name}.{secrets.token_hex(4)}.tmp")
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    try:
        with os.fdopen(fd, "wb") as fh:
            fh.write(data)
            fh.flush()
            os.fsync(fh.fileno())
        os.replace(tmp, path)
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise


def check_pin_format(pin: object, field: str = "pin") -> str:
    if not isinstance(pin, str) or not PIN_PATTERN.match(pin):
        raise BadInput(Message.t('web.security.the_pin_must_be_4'), field=field)
    return pin


class PinStore:
    """The admin PIN as a salted hash in ``<data>/web/admin.json``.

    ``epoch`` grows each time the PIN changes; sessions remember the epoch they logged in under,
    so changing the PIN logs every other tablet out.
    """

    def __init__(self, path: Path | str, method: str = "scrypt"):
        self.path = Path(path)
        self._method = method
        self._lock = threading.Lock()
        self._hash: str | None = None
        self._epoch = 0
        if self.path.exists():
            doc = safejson.load_file(str(self.path), "admin PIN file")
            self._hash = doc.get("hash")
            self._epoch = int(doc.get("epoch", 0))

    def is_set(self) -> bool:
        return self._hash is not None

    @property
    def epoch(self) -> int:
        return self._epoch

    def set_pin(self, pin: str) -> None:
        check_pin_format(pin)
        digest = generate_password_hash(pin, method=self._method)
        with self._lock:
            epoch = self._epoch + 1
            write_private(self.path, json.dumps({"hash": digest, "epoch": epoch}).encode())
            self._hash, self._epoch = digest, epoch

    def verify(self, pin: str) -> bool:
        if self._hash is None or not isinstance(pin, str):
            return False
        return check_password_hash(self._hash, pin)


@dataclass
class _Client:
    failures: deque[float]
    locked_until: float = 0.0
    strikes: int = 0


class LoginLimiter:
    """Rate limit for PIN attempts.

    A client gets ``max_failures`` wrong PINs within ``window`` seconds; then it is locked out for
    ``lockout`` seconds, doubling with each further failure up to ``max_lockout``. Independently,
    ``global_max`` failures from all clients together within the window lock PIN entry for
    everyone for ``lockout`` seconds, so guessing from many addresses does not help.
    """

    def __init__(self, clock: Callable[[], float], *, max_failures: int = 5, window: float = 600.0,
                 lockout: float = 30.0, max_lockout: float = 900.0, global_max: int = 30):
        self._clock = clock
        self.max_failures = max_failures
        self.window = window
        self.lockout = lockout
        self.max_lockout = max_lockout
        self.global_max = global_max
        self._clients: dict[str, _Client] = {}
        self._all: deque[float] = deque()
        self._global_until = 0.0
        self._lock = threading.Lock()

    def _trim(self, q: deque[float], now: float) -> None:
        while q and q[0] <= now - self.window:
            q.popleft()

    def wait_for(self, client: str) -> float:
        """Seconds the client must still wait before trying again (0 = may try now)."""
        now = self._clock()
        with self._lock:
            c = self._clients.get(client)
            mine = max(0.0, c.locked_until - now) if c else 0.0
            return max(mine, max(0.0, self._global_until - now))

    def check(self, client: str) -> None:
        wait = self.wait_for(client)
        if wait > 0:
            raise TooManyAttempts(
                Message.t('web.security.too_many_wrong_pins_try', wait=int(wait + 0.999)),
                retry_after=wait,
            )

    def failure(self, client: str) -> None:
        now = self._clock()
        with self._lock:
            c = self._clients.setdefault(client, _Client(deque()))
            self._trim(c.failures, now)
            c.failures.append(now)
            if len(c.failures) >= self.max_failures:
                c.strikes += 1
                c.locked_until = now + min(self.max_lockout, self.lockout * 2 ** (c.strikes - 1))
            self._trim(self._all, now)
            self._all.append(now)
            if len(self._all) >= self.global_max:
                self._global_until = now + self.lockout
            if len(self._clients) > 10_000:  # bound the memory a flood of addresses can take
                for key in [k for k, v in self._clients.items() if v.locked_until < now][:5000]:
                    del self._clients[key]

    def success(self, client: str) -> None:
        with self._lock:
            self._clients.pop(client, None)


def new_token() -> str:
    return secrets.token_urlsafe(32)


def load_secret_key(path: Path) -> bytes:
    """The session signing key, made once per installation and kept private."""
    if path.exists():
        data = path.read_bytes()
        if len(data) >= 32:
            return data
    key = secrets.token_bytes(48)
    write_private(path, key)
    return key

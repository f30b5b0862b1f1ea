"""What ``tableref run`` does as the Pi's service besides refereeing.

* ``DataLock``: one service per data folder (an ``flock`` on ``<data>/.tableref.lock``, released
  by the kernel when the process dies, even after ``kill -9``); ``tableref backup restore`` takes
  the same lock, so it never swaps files under a running referee.
* ``ServiceHost``: after the dashboard answers, announce it over mDNS (``tableref.mdns``), tell
  systemd ``READY=1`` and keep its watchdog fed while the referee and the dashboard are alive
  (``tableref.sd_notify``); on stop, ``STOPPING=1`` and withdraw the announcement.
* Restore from the dashboard: the checked archive is handed over, the service stops as on
  SIGTERM, swaps the data folder and starts again in the same process (``exec``: the same PID
  for systemd, told ``RELOADING=1`` before and ``READY=1`` after, never ``STOPPING=1``).
* ``StopSteps``: a stop's steps, each bounded and all within ``STOP_BUDGET`` (1.5 s), so that the
  process is gone within 2 s of SIGTERM; a step that overruns is logged (which one, how long) and
  left behind instead of holding the stop until systemd's SIGKILL.
* ``tune_malloc``: large buffers (camera frames) go back to the system when freed instead of
  staying in glibc's heap (about 35 MB less resident memory with the camera on; bench/bench_service.py).
"""

from __future__ import annotations

import ctypes
import ctypes.util
import fcntl
import logging
import os
import sys
import threading
import time
from pathlib import Path
from typing import Any, Callable

from scorer.core.types import Message, TableRefError
from tableref.backup import LOCK_FILE
from tableref.lang import BOTH, show
from tableref.sd_notify import Notifier, Watchdog

log = logging.getLogger(__name__)

STOP_BUDGET = 1.5  # seconds for every step of a stop: gone within 2 s of SIGTERM, with room for the exit itself
M_MMAP_THRESHOLD = -3  # glibc's mallopt parameter number
MMAP_THRESHOLD = 128 * 1024


class DataFolderBusy(TableRefError, RuntimeError):
    """Another process (a running service, a restore) holds the data folder."""


class DataLock:
    """An exclusive, non-blocking ``flock`` on ``<data>/.tableref.lock`` holding the owner's PID."""

    def __init__(self, data_dir: str | Path, purpose: str = "service") -> None:
        self.path = Path(data_dir) / LOCK_FILE
        self.purpose = purpose
        self._fd: int | None = None

    def acquire(self) -> "DataLock":
        self.path.parent.mkdir(parents=True, exist_ok=True)
        fd = os.open(self.path, os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o644)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            holder = os.pread(fd, 200, 0).decode(errors="replace").strip() or "another process"
            os.close(fd)
            raise DataFolderBusy(f"the data folder {self.path.parent} is in use by {holder}") from None
        os.ftruncate(fd, 0)
        os.pwrite(fd, f"{self.purpose} (pid {os.getpid()})\n".encode(), 0)
        self._fd = fd
        return self

    def release(self) -> None:
        fd, self._fd = self._fd, None
        if fd is not None:
            os.close(fd)  # closing drops the flock

    def __enter__(self) -> "DataLock":
        return self.acquire()

    def __exit__(self, *exc: object) -> None:
        self.release()


def tune_malloc() -> bool:
    """Fix glibc's mmap threshold at 128 KiB (it otherwise grows to 32 MB after the first large
    free, and freed frame buffers then stay resident). False where there is no glibc."""
    try:
        libc = ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6")
        return bool(libc.mallopt(M_MMAP_THRESHOLD, MMAP_THRESHOLD))
    except (OSError, AttributeError):
        return False


class StopSteps:
    """A stop's steps, run in order, each on a helper thread that is waited for at most its own
    ``bound`` and never past the budget's end (``STOP_BUDGET`` after the stop began).

    A step that overruns is logged with its name and how long it was given, and left behind: the
    next step starts, and the process ends without it (``exit_if_program``), as systemd would
    kill it anyway, only within 2 s and saying which step it was. A step that raises is logged too
    and the stop goes on, so the event store is still closed after a dashboard that failed to stop.
    """

    def __init__(self, budget: float = STOP_BUDGET, *, clock: Callable[[], float] = time.monotonic) -> None:
        self.clock = clock
        self.started = clock()
        self.deadline = self.started + budget
        self.overruns: list[str] = []  # the steps left behind

    def left(self) -> float:
        """Seconds until the budget's end (0 once it is spent)."""
        return max(0.0, self.deadline - self.clock())

    def run(self, name: str, fn: Callable[[], Any], bound: float | None = None) -> bool:
        """``fn()`` on a helper thread, waited for at most ``bound`` seconds (default: the rest of the
        budget); True when it ended in time."""
        limit = self.left() if bound is None else min(bound, self.left())
        done = threading.Event()
        failed: list[BaseException] = []

        def step() -> None:
            try:
                fn()
            except BaseException as exc:  # noqa: BLE001 - reported below; the stop goes on
                failed.append(exc)
            finally:
                done.set()

        t0 = self.clock()
        threading.Thread(target=step, name=f"stop-{name}", daemon=True).start()
        if not done.wait(limit):
            self.overruns.append(name)
            log.warning("stop: %s did not end within %.2f s (%.2f s into the stop); going on without it",
                        name, limit, self.clock() - self.started)
            return False
        if failed:
            log.warning("stop: %s failed after %.2f s: %r", name, self.clock() - t0, failed[0],
                        exc_info=(type(failed[0]), failed[0], failed[0].__traceback__))
        return True


class ServiceHost:
    """The service's ties to the appliance around one runtime and dashboard (see the module doc)."""

    def __init__(self, config: Any, *, say: Callable[[str], None], env: dict[str, str] | None = None,
                 langs: tuple[str, ...] = BOTH) -> None:
        self.config = config
        self.say = say
        self.langs = langs  # the terminal's languages (tableref.lang.cli_languages)
        self.notifier = Notifier(env)
        self.lock = DataLock(config.data_dir)
        self.watchdog: Watchdog | None = None
        self.announcer: Any = None
        self.pending_restore: Path | None = None

    # -- start ---------------------------------------------------------------------------------
    def acquire(self) -> None:
        self.lock.acquire()

    def restore_hook(self, stop: threading.Event) -> Callable[[Path], None]:
        """For the dashboard: hand over a checked archive; the service restarts with it."""

        def hand_over(archive: Path) -> None:
            if self.pending_restore is not None and self.pending_restore != Path(archive):
                self.pending_restore.unlink(missing_ok=True)  # two restores at once: the last one wins
            self.pending_restore = Path(archive)
            # let the dashboard's answer reach the tablet before the server goes down
            threading.Timer(0.5, stop.set).start()

        return hand_over

    def started(self, runtime: Any, dashboard: Any, host: str) -> None:
        """The dashboard answers: announce it, tell systemd, start feeding the watchdog."""
        if dashboard is not None:
            self._announce(host, dashboard.server.port)
        snap = runtime.snapshot()
        self.notifier.ready(f"table {self.config.name}: game {snap.get('game_no')} ({snap.get('game')})")
        self.watchdog = Watchdog(self.notifier, lambda: _healthy(runtime, dashboard)).start()

    def _announce(self, host: str, port: int) -> None:
        web = self.config.web
        try:
            from tableref import mdns

            plan = mdns.plan(self.config.name, web.mdns_host, port, host, web.mdns,
                             properties={"game": str(self.config.game_id)})
        except ImportError as exc:
            self.say(f"mDNS: not announced (python-zeroconf is not installed: {exc})")
            return
        if plan is None:
            if web.mdns is not False:
                self.say(f"mDNS: not announced (the dashboard listens on {host} only; [web] mdns = true to announce it there)")
            return
        self.announcer = mdns.Announcer(plan, on_done=lambda a: self.say(a.describe())).start()

    # -- stop ------------------------------------------------------------------------------------
    def stopping(self) -> None:
        """STOPPING=1, or for a restore RELOADING=1: systemd then waits for the READY=1 of the same
        process after its ``exec`` instead of killing a service that said it was stopping."""
        if self.pending_restore is not None:
            self.notifier.send(reloading=1, status="restoring a backup")
        else:
            self.notifier.stopping()

    def close(self) -> None:
        """First thing on a stop: the watchdog ends, the mDNS goodbye starts (while the rest stops)."""
        if self.watchdog is not None:
            self.watchdog.close()
        if self.announcer is not None:
            self.announcer.begin_close()

    def finish(self, withdraw_timeout: float = 1.0) -> None:
        """After the runtime stopped: release the data folder, or restore and start again.
        ``withdraw_timeout``: how long the mDNS goodbye (started in ``close``) may still take."""
        if self.announcer is not None:
            if not self.announcer.close(timeout=withdraw_timeout):  # rarely still under way here
                log.warning("stop: the mDNS goodbye did not end within %.2f s; going on without it", withdraw_timeout)
        archive, self.pending_restore = self.pending_restore, None
        if archive is None:
            self.lock.release()
            return
        from tableref.backup import BackupError, describe, restore_backup

        try:
            restored = restore_backup(archive, self.config.data_dir)
            self.say(f"restored {describe(restored.manifest)}; the replaced files are in {restored.previous}")
        except BackupError as exc:
            self.say(f"restore failed, the data folder is unchanged: {exc}")
        finally:
            archive.unlink(missing_ok=True)
        self.lock.release()
        self.say(show(Message.t("tableref.appliance.starting_again"), self.langs))
        sys.stdout.flush()
        sys.stderr.flush()
        os.execv(sys.executable, [sys.executable, *sys.orig_argv[1:]])


def exit_if_program(code: int) -> None:
    """End the process now when ``tableref`` is the program (not a test calling ``main``): after a
    clean stop everything is on disk and closed, and the interpreter's own teardown of NumPy,
    OpenCV and the rest (0.3-0.7 s here) would eat most of the 2 s a stop may take."""
    main = sys.modules.get("__main__")
    spec = getattr(main, "__spec__", None)
    program = (spec is not None and spec.name == "tableref.__main__") or \
        os.path.basename(getattr(main, "__file__", "") or "") == "tableref"
    if not program:
        return

    def flush() -> None:
        logging.shutdown()
        for stream in (sys.stdout, sys.stderr):
            try:
                stream.flush()
            except (OSError, ValueError):
                pass

    # bounded too: a journal that does not read (or a log handler's lock an abandoned step holds)
    # must not keep the process from exiting
    flusher = threading.Thread(target=flush, name="stop-flush", daemon=True)
    flusher.start()
    flusher.join(0.2)
    os._exit(code)


def _healthy(runtime: Any, dashboard: Any) -> bool:
    """The referee's worker answers within 5 s and the dashboard's server thread is alive."""
    if not runtime.running:
        return False
    try:
        runtime.call(lambda table: True, timeout=5.0)
    except TableRefError:
        return False
    if dashboard is not None:
        thread = getattr(dashboard.server, "_thread", None)
        if thread is None or not thread.is_alive():
            return False
    return True

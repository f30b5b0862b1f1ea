"""``tableref run`` (the Pi's main job) and ``tableref demo`` (the same runtime, emulated devices).

Both accept ``--host``/``--port`` and print the dashboard's address ``http://HOST:PORT/`` on a
line of its own once it answers (``--no-web``, or no ``web`` package, prints a note instead).
Both print every accepted move, flag, correction, undo, override and score change as it happens.
"""

from __future__ import annotations

import argparse
import json
import threading
from pathlib import Path
from typing import Any

from scorer.core.types import InvalidRecord, Message, TableRefError
from tableref.lang import add_lang_option, cli_languages, show
from tableref.stopper import Stopper


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("run", help="run the referee for one table (the Pi's main job)",
                       description="Run the referee for the table described by a TOML configuration: sensors in, refereed and "
                                   "scored moves out, the event store, GPIO and the dashboard. Stops cleanly on Ctrl-C or SIGTERM; "
                                   "after a crash or power cut it resumes the game where it was.")
    p.add_argument("--config", required=True, metavar="TABLE.toml")
    _web_args(p, default_host=None, default_port=None)
    p.set_defaults(func=cmd_run)

    d = sub.add_parser("demo", help="a whole refereed game of China on an emulated table (the README's main job); --game for the others",
                       description="Run the real runtime with the emulated sensor board on a pseudo-terminal, mock GPIO buttons and "
                                   "a card-reader twin, and play a scripted China game that includes an illegal move, which is "
                                   "flagged and then put right. After the final scoreboard the dashboard keeps serving until Ctrl-C "
                                   "(use --exit-when-done to stop at once, --loop to play again and again). --game plays a scripted game of "
                                   "one of the other games instead (to its end, but Ming's: through the round-2 scoring).")
    _web_args(d, default_host="127.0.0.1", default_port=8080)
    d.add_argument("--speed", type=float, default=1.0,
                   help="pace of the scripted players (2 = twice as fast; default 1); above 1 the referee's settle, "
                        "grace and quiet times shrink too, never below 0.15 s, 0.2 s and 1 s")
    d.add_argument("--data-dir", help="keep the demo's event store, tag registry and exports here (default: a temporary folder)")
    d.add_argument("--exit-when-done", action="store_true", help="exit after the final scoreboard instead of serving on")
    d.add_argument("--loop", action="store_true", help="start a new game after each one (until Ctrl-C)")
    d.add_argument("--no-camera", action="store_true", help="leave the synthetic camera out (the sensor board then covers every space)")
    d.add_argument("--camera-only", action="store_true",
                   help="no sensor board: the synthetic camera alone referees the game, after enrolling the table as "
                        "the dashboard's camera enrolment page does")
    from tableref.demo_script import GAME_DEMOS

    d.add_argument("--game", choices=["china", *GAME_DEMOS], default="china",
                   help="which game to referee (default china: the whole game). great_wall: a whole game on the demo's "
                        "shortened token supply; cheops: a whole game, to two full price tables; zhang_yi: a whole short game, "
                        "to hegemony in turn 2; ming: two rounds, through the round-2 scoring. Each has an illegal move and "
                        "its correction and an undo, and ends with the scoreboard; they declare what no sensor sees (draws ...) "
                        "as the dashboard would. Each is read by the synthetic camera and the sensor board (as China's); "
                        "Zhang Yi's battle dice by the camera in the dice tray")
    d.add_argument("--mqtt", metavar="HOST[:PORT]",
                   help="also publish the table's events and state to this MQTT broker under tableref/demo/ (docs/runtime.md)")
    d.set_defaults(func=cmd_demo)


def _web_args(p: argparse.ArgumentParser, default_host: str | None, default_port: int | None) -> None:
    p.add_argument("--host", default=default_host, help="dashboard address to listen on" + (f" (default {default_host})" if default_host else " (default: the configuration's [web] host)"))
    p.add_argument("--port", type=int, default=default_port, help="dashboard port" + (f" (default {default_port})" if default_port else " (default: the configuration's [web] port)"))
    p.add_argument("--no-web", action="store_true", help="do not start the dashboard")
    add_lang_option(p)


def _langs(args: argparse.Namespace) -> tuple[str, ...]:
    """The terminal's languages (--lang, else the environment)."""
    try:
        return cli_languages(getattr(args, "lang", None))
    except ValueError as exc:
        raise InvalidRecord(str(exc), where="--lang") from exc


def _console_lang(args: argparse.Namespace) -> str:
    """The terminal's languages for the console printer (tags joined with +)."""
    return "+".join(_langs(args))


def _say(text: str) -> None:
    print(text, flush=True)


def _tell(args: argparse.Namespace, message: Message) -> None:
    """A catalogue text in the terminal's languages."""
    _say(show(message, _langs(args)))


def cmd_run(args: argparse.Namespace) -> int:
    from tableref.config import load_config
    from tableref.console import ConsolePrinter, format_scoreboard
    from tableref.dashboard import start_dashboard
    from tableref.runtime_config import build_runtime

    from tableref.appliance import ServiceHost, StopSteps, tune_malloc

    config = load_config(args.config)
    tune_malloc()
    service = ServiceHost(config, say=_say, langs=_langs(args))  # systemd notify + watchdog, mDNS, the data folder's lock, restore
    service.acquire()
    runtime = build_runtime(config)
    steps: StopSteps | None = None
    with Stopper() as stop:
        printers: list[ConsolePrinter] = []
        runtime.start(attach=lambda bus: printers.append(ConsolePrinter(bus, lang=_console_lang(args))))
        printer = printers[0]
        dashboard = None
        try:
            snap = runtime.snapshot()
            _tell(args, Message.t("tableref.run.table_started", name=config.name, game_no=snap.get("game_no"), game=snap.get("game"),
                                  version=snap.get("version"), store=config.store_path))
            if config.mqtt is not None:
                _tell(args, Message.t("tableref.run.mqtt_publishing", broker=config.mqtt.broker, base=config.mqtt.base))
            if args.no_web or not config.web.enabled:
                _tell(args, Message.t("tableref.run.dashboard_not_started_config"))
            elif not stop.event.is_set():  # a SIGTERM during the start-up: no dashboard to start and stop again
                host = args.host or config.web.host
                port = config.web.port if args.port is None else args.port
                dashboard, note = start_dashboard(runtime, host=host, port=port, data_dir=config.data_dir,
                                                  threads=config.web.threads, pin_hash=config.pin_hash,
                                                  on_restore=service.restore_hook(stop.event))
                _say(dashboard.url if dashboard else note)
                _tell_venue(runtime, dashboard, host)
            if not stop.event.is_set():
                service.started(runtime, dashboard, args.host or config.web.host)
            stop.event.wait()
            # from here each step is bounded, all of them by one budget (appliance.STOP_BUDGET): the
            # process is gone within 2 s of SIGTERM, and a step that overruns is named in the log
            steps = StopSteps()
            steps.run("scoreboard", lambda: _say(format_scoreboard(runtime.snapshot(), _console_lang(args))), bound=0.5)
        finally:
            bounded = steps or StopSteps()  # after an error too: the same bounded stop
            bounded.run("STOPPING=1", service.stopping, bound=0.3)
            bounded.run("watchdog and mDNS", service.close, bound=0.6)
            if dashboard is not None:
                dash = dashboard
                bounded.run("dashboard", lambda: dash.stop(timeout=max(0.1, bounded.left() - 0.05)))
            bounded.run("console", printer.close, bound=0.5)
            bounded.run("runtime", lambda: runtime.stop(timeout=max(0.1, bounded.left() - 0.05)))
    service.finish(withdraw_timeout=bounded.left())  # releases the data folder; after a restore from the dashboard, starts again
    from tableref.appliance import exit_if_program

    exit_if_program(0)  # the stop's last step: no interpreter teardown (see there)
    return 0


def cmd_demo(args: argparse.Namespace) -> int:
    from tableref.console import ConsolePrinter, format_scoreboard
    from tableref.demo import (DEMO_PIN, GAME_DEMOS, SCRIPT, SETUP, DemoStopped, build_demo, build_game_demo, demo_data_dir, enrol_camera,
                               game_demo, intro, run_script)
    from tableref.dashboard import start_dashboard

    if args.speed <= 0:
        raise DemoArgError("--speed must be positive")
    mqtt_settings = _mqtt_arg(args.mqtt) if getattr(args, "mqtt", None) else None
    game_id = getattr(args, "game", "china")
    camera_only = bool(getattr(args, "camera_only", False))
    if camera_only and args.no_camera:
        raise DemoArgError("--camera-only and --no-camera contradict each other")
    data_dir, temporary = demo_data_dir(args.data_dir)
    # faster players also get a faster referee, within what the sensors need
    speed = max(args.speed, 1.0)
    timings = dict(settle=max(0.15, 0.4 / speed), complete_grace=max(0.2, 0.8 / speed), quiet_timeout=max(1.0, 4.0 / speed))
    if game_id == "china":
        demo = build_demo(data_dir, camera=False if args.no_camera else None, camera_only=camera_only, **timings)
        setup, script, m = dict(SETUP), SCRIPT, intro()
    else:
        gd = game_demo(game_id)
        if camera_only and not gd.camera:
            raise DemoArgError(f"--camera-only: the {game_id} demo is not read by the synthetic camera (the china and "
                               f"{', '.join(g for g in GAME_DEMOS if game_demo(g).camera)} demos are)")
        if camera_only and gd.camera_only_gap:
            raise DemoArgError(f"--camera-only: the {game_id} demo needs the sensor board: {gd.camera_only_gap}")
        timings["quiet_timeout"] = max(1.0, gd.quiet_timeout / speed)
        demo = build_game_demo(gd, data_dir, camera=False if args.no_camera else None, camera_only=camera_only, **timings)
        setup, script, m = dict(gd.setup, game=gd.game_id), gd.script, gd.intro
    rt = demo.runtime
    if mqtt_settings is not None:
        from tableref.mqtt import MqttPublisher

        mqtt = MqttPublisher(mqtt_settings)
        rt.add_device(mqtt)
        _tell(args, Message.t("tableref.run.mqtt_publishing", broker=mqtt.settings.broker, base=mqtt.settings.base))
    for lang in _langs(args):  # the introduction is long: one paragraph per language
        _say(m.get(lang))
    for note in demo.notes:
        _tell(args, Message.t("tableref.run.note", text=note))
    dashboard = None
    with Stopper() as stop:
        printers: list[ConsolePrinter] = []
        rt.start(attach=lambda bus: printers.append(ConsolePrinter(bus, lang=_console_lang(args))))
        printer = printers[0]
        try:
            if args.no_web:
                _tell(args, Message.t("tableref.run.dashboard_not_started"))
            else:
                dashboard, note = start_dashboard(rt, host=args.host, port=args.port, data_dir=str(data_dir / "web"),
                                                  initial_pin=DEMO_PIN, backup_dir=str(data_dir))
                if dashboard is None:
                    _say(f"note: {note}")
                else:
                    _say(dashboard.url)
                    _tell(args, Message.t("tableref.run.admin_pin", pin=DEMO_PIN))
                    _tell_venue(rt, dashboard, args.host)
            # the sensor board must be live before the players start
            from tableref.demo import wait_until

            halt = stop.event  # Ctrl-C / SIGTERM: every wait below ends at once (the script raises DemoStopped)
            if "sensor_board" in rt.devices_ and not wait_until(lambda: _sensor_live(rt), 15.0, stop=halt) and not halt.is_set():
                raise DemoArgError("the emulated sensor board did not come up")
            if "camera" in rt.devices_ and not wait_until(lambda: _camera_up(rt), 30.0, stop=halt) and not halt.is_set():
                raise DemoArgError("the synthetic camera did not come up")
            enrol = camera_only or (game_id != "china" and gd.enrol and "camera" in rt.devices_)
            if enrol and not halt.is_set():  # the table is enrolled once, before the first game, as on the dashboard
                enrol_camera(demo, stop=halt, langs=_langs(args))
            game = 0
            while not stop.event.is_set():
                game += 1
                if game > 1:
                    # the players clear the table, then set up the next game
                    if game_id == "china":
                        _clear_table(demo)
                        wait_until(lambda: not rt.snapshot()["sensors"]["sensed"], 20.0, stop=halt)
                    else:
                        demo.reset_table()
                        want = demo.initial.to_json() if demo.initial is not None else {}
                        wait_until(lambda: rt.snapshot()["sensors"]["sensed"] == want, 20.0, stop=halt)
                    res = rt.new_game(dict(setup), "demo", authorised=True)
                    if not res.ok:
                        raise DemoArgError(str(res.message))
                run_script(demo, speed=args.speed, timeout=max(20.0, 20.0 / args.speed), script=script, stop=halt,
                           langs=_langs(args))
                if game_id != "china":
                    # the short demos stop right after their last move: let its lines out before the scoreboard
                    wait_until(lambda: printer._sub.queue.empty(), 2.0)
                    threading.Event().wait(0.3)
                snap = rt.snapshot()
                _say("")
                _say(format_scoreboard(snap, _console_lang(args)))
                exported = _export(rt, data_dir, snap.get("game_no"))
                _tell(args, Message.t("tableref.run.game_record", path=exported[0]))
                _tell(args, Message.t("tableref.run.event_log_csv", path=exported[1]))
                if not args.loop:
                    break
            if dashboard is not None and not args.exit_when_done and not args.loop:
                _tell(args, Message.t("tableref.run.keeps_serving", url=dashboard.url))
                stop.event.wait()
        except DemoStopped:
            snap = rt.snapshot()
            _tell(args, Message.t("tableref.run.stopped", game_no=snap.get("game_no"), moves=snap.get("moves"), store=rt.store_path))
        finally:
            if dashboard is not None:
                dashboard.stop()
            printer.close()
            demo.close()
            if temporary:
                _tell(args, Message.t("tableref.run.files_stay", path=data_dir))
    return 0


class DemoArgError(TableRefError, ValueError):
    pass


def _tell_venue(runtime: Any, dashboard: Any, host: str) -> None:
    """Give the MQTT publisher the dashboard's address for the venue screen (unless configured):
    listening on every interface, the Pi's mDNS name ``HOSTNAME.local``; else the address itself."""
    mqtt = runtime.devices_.get("mqtt")
    if dashboard is None or mqtt is None or not hasattr(mqtt, "set_dashboard_url") or mqtt.settings.dashboard_url:
        return
    import socket

    port = dashboard.server.port
    url = f"http://{socket.gethostname()}.local:{port}/" if host in ("0.0.0.0", "::", "") else dashboard.url
    mqtt.set_dashboard_url(url)


def _mqtt_arg(text: str) -> Any:
    from tableref.mqtt import MqttSettings

    host, sep, port = text.rpartition(":") if text.count(":") == 1 else (text, "", "")
    if not host or (sep and not port.isdigit()) or not 0 < int(port or 1883) < 65536:
        raise DemoArgError(f"--mqtt {text!r}: expected HOST or HOST:PORT")
    return MqttSettings(host=host, port=int(port or 1883), table_id="demo")


def _camera_up(rt: Any) -> bool:
    """The camera reads frames: live, or held for its enrolment (the Zhang Yi demo enrols first)."""
    dev = rt.devices().get("camera", {})
    return dev.get("state") == "ok" or ("held" in dev and dev.get("registration") is not None)


def _sensor_live(rt: Any) -> bool:
    dev = rt.devices().get("sensor_board", {})
    return dev.get("state") == "connected"


def _clear_table(demo: Any) -> None:
    for (space, piece), uids in list(demo.table.placed.items()):
        for _ in list(uids):
            demo.table.take(space, piece)


def _export(rt: Any, data_dir: Path, game_no: Any) -> tuple[str, str]:
    record = rt.export_record()
    json_path = data_dir / f"game-{game_no}.json"
    csv_path = data_dir / f"game-{game_no}.csv"
    json_path.write_text(json.dumps(record, ensure_ascii=False, indent=1) + "\n", encoding="utf-8")
    csv_path.write_text(rt.export_csv(), encoding="utf-8")
    return str(json_path), str(csv_path)


"""``python -m web``: the dashboard on its own, on a fake table that plays a China game by itself.

For working on the pages without the runtime or any device; the product's entry points are
``tableref demo`` and ``tableref run``.

    python -m web --port 8080 --data /tmp/tableref-web --pin 1234
"""

from __future__ import annotations

import argparse
import sys
import tempfile
from typing import Sequence

from web.app import create_app
from web.boards import BoardLibrary
from web.fake import FakeTableService
from web.fake_demo import DemoDriver
from web.server import make_server


def main(argv: Sequence[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m web", description="Dashboard on a fake, self-playing table.")
    ap.add_argument("--host", default="127.0.0.1")
    ap.add_argument("--port", type=int, default=8080)
    ap.add_argument("--threads", type=int, default=64)
    ap.add_argument("--data", default=None, help="data folder (default: a new temporary folder)")
    ap.add_argument("--pin", default=None, help="admin PIN to set if none is set yet")
    ap.add_argument("--players", default="blue,green,red,yellow")
    ap.add_argument("--interval", type=float, default=2.5, help="seconds between moves")
    ap.add_argument("--synthetic-camera", action="store_true",
                    help="a real camera device on the synthetic camera (live picture, camera enrolment page)")
    args = ap.parse_args(argv)
    data = args.data or tempfile.mkdtemp(prefix="tableref-web-")
    setup = {"players": args.players.split(","), "board": "china-a"}
    library = BoardLibrary(__import__("pathlib").Path(data).resolve())
    camera = None
    if args.synthetic_camera:
        import os

        from hardware.camera import SyntheticCamera
        from tableref.camera_device import CameraDevice
        from vision.layout import load_layout
        from vision.render import Conditions

        layout = load_layout("china-a")
        camera = CameraDevice(SyntheticCamera(layout, conditions=Conditions(size=(960, 720)), seed=3, noise_sigma=0.0),
                              layout, fps=4.0, emulated=True, model_path=os.path.join(data, "table-model.npz"))
    service = FakeTableService(setup=setup, geometry=library.geometry, camera=camera)
    app = create_app(service, data_dir=data, initial_pin=args.pin)
    server = make_server(app, args.host, args.port, threads=args.threads).start()
    if not server.wait_ready(10):
        print("the dashboard did not start", file=sys.stderr)
        return 1
    driver = DemoDriver(service, interval=args.interval, restart=setup).start()
    print(server.url, flush=True)
    try:
        while True:
            __import__("time").sleep(3600)
    except KeyboardInterrupt:
        pass
    finally:
        driver.stop()
        server.stop()
        service.close()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

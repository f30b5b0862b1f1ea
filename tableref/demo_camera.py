"""The demos' synthetic camera, for any game whose demo board has a vision layout.

``demo_layout`` finds the layout of the board a demo's set-up plays on through the game's board
kit (``scorer.core.registry.board_kit``: the set-up's board, else the kit's default, and its
``layout_id``). ``add_camera`` hangs a ``hardware.camera.SyntheticCamera`` over that layout and
gives it to the runtime as a ``CameraDevice``, which reads it with ``vision.table_reader.TableReader``
(the table model the enrolment saves lives in the demo's folder: ``tableref.demo_enrol.enrol_camera``).
China's demo and the other games' demos use the same two calls, after ``wants_camera`` decided
whether the demo hangs the camera at all (``camera_available``: whether it is installed).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Mapping

from scorer.core.types import Message
from tableref.demo_table import DemoError

CAMERA_SIZE = (960, 720)  # the synthetic camera's frame: straight above the board, no noise
CAMERA_SEED = 3


def camera_available() -> bool:
    """The synthetic camera is the vision helper's part; use it when it is installed."""
    import importlib.util

    return importlib.util.find_spec("hardware.camera") is not None


def wants_camera(layout: Any, camera: bool | None, camera_only: bool) -> bool:
    """Whether a demo hangs the synthetic camera over its board: ``camera`` None means when it is
    installed and the board has a vision layout; ``camera_only`` needs both."""
    if camera_only and camera is False:
        raise DemoError("--camera-only and --no-camera contradict each other")
    if camera_only and not camera_available():
        raise DemoError("--camera-only needs the synthetic camera (hardware.camera and vision are not installed)")
    if camera_only and layout is None:
        raise DemoError("--camera-only needs a vision layout of the demo's board; this game's demo has none")
    if layout is None:
        return False
    return camera_only or (camera_available() if camera is None else camera)


def demo_layout(game_id: str, setup: Mapping[str, Any]) -> Any:
    """The ``vision.layout.Layout`` of the board the set-up plays on, or None when the game has
    no shipped layout for it (or vision is not installed)."""
    try:
        from vision.errors import LayoutError
        from vision.layout import load_layout, shipped_layouts
    except ImportError:
        return None
    from scorer.core.registry import board_kit

    kit = board_kit(game_id)
    board = setup.get("board") if kit is None or kit.setup_key is None else setup.get(kit.setup_key)
    if kit is not None:
        board = kit.layout_id(str(board or kit.default_board()))
    if not board or str(board) not in shipped_layouts():
        return None
    try:
        return load_layout(str(board))
    except LayoutError:
        return None


def add_camera(runtime: Any, layout: Any, data_dir: Path, fps: float, fill: float | None = None) -> Any:
    """A synthetic camera over ``layout`` (nothing on it yet) on the runtime; returns the camera,
    whose ``place``/``remove``/``hand_over``/``roll`` the demo's table calls. ``fill``: the board's
    share of the frame (a camera closer to the board: Zhang Yi's die needs some 16 px a face)."""
    from hardware.camera import SyntheticCamera
    from tableref.camera_device import CameraDevice
    from vision.render import Conditions

    conditions = Conditions(size=CAMERA_SIZE) if fill is None else Conditions(size=CAMERA_SIZE, fill=fill)
    camera = SyntheticCamera(layout, conditions=conditions, seed=CAMERA_SEED, noise_sigma=0.0,
                             nominal_fps=fps)
    runtime.add_device(CameraDevice(camera, layout, fps=fps, emulated=True, model_path=str(data_dir / "table-model.npz")))
    return camera


def camera_note(camera_only: bool, fps: float, rfid_regions: tuple[str, ...]) -> Message:
    """The demo's note on who sees the board: the camera alone, or the camera and antennas under some regions."""
    if camera_only:
        return Message.t("tableref.demo.note_camera_only_game", fps=f"{fps:g}")
    if not rfid_regions:  # an antenna under every space (The Great Wall's sections)
        return Message.t("tableref.demo.note_camera_all_antennas", fps=f"{fps:g}")
    return Message.t("tableref.demo.note_camera", fps=f"{fps:g}", provinces=rfid_regions)

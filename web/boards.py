"""Boards for the dashboard: which boards each game has, what the Board page draws, and saving
the boards users capture. Every game-specific step goes through the game's board kit
(``scorer.core.registry.board_kit``, scorer/core/boardkit.py): this module knows no game.

* Data files (the rules' topology) are the game's shipped ones and the ones captured on this table
  (``<data>/boards/<id>.json``; the file's ``format`` says which game it is for).
* Geometry comes from a layout (``<data>/layouts/<id>.json`` for captured boards, then
  ``vision/layouts/<layout id>.json``); the kit turns data file + layout into a drawing (China
  draws a schematic from the topology when no layout places every space).

Only this module writes board files, and only below ``<data>``: ids are checked against a strict
pattern and every path is resolved and compared with its folder before use.
"""

from __future__ import annotations

import json
import re
import threading
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Mapping

from scorer.core import safejson
from scorer.core.boardkit import corner_markers, inherit_from_template
from scorer.core.registry import board_kit
from scorer.core.types import InvalidRecord, Message
from web.errors import BadInput, Conflict, NotFound
from web.security import write_private

BOARD_ID = re.compile(r"^[a-z0-9][a-z0-9_-]{0,47}$")
DEFAULT_GAME = "china"  # the game of a request that names none (the dashboard's first game)


def default_markers(size_mm: tuple[float, float], marker_mm: float = 34.0) -> dict[str, Any]:
    """Corner markers where China's shipped layouts put them (used when a photo names none)."""
    return corner_markers(size_mm, marker_mm)


def check_board_id(board_id: object, field: str = "id") -> str:
    if not isinstance(board_id, str) or not BOARD_ID.match(board_id):
        raise BadInput(Message.t('web.boards.a_board_id_is_1'), field=field)
    return board_id


def _inside(folder: Path, name: str) -> Path:
    """``folder/name`` after checking that it cannot leave ``folder`` (ids are checked first too)."""
    base = folder.resolve()
    path = (base / name).resolve()
    if path.parent != base:
        raise BadInput(Message.t('web.boards.that_name_is_not_allowed'), field="id")
    return path


def _optional_vision() -> Any:
    """The vision layout module if it is installed and importable (the dashboard works without it)."""
    try:
        from vision import layout as vlayout
    except ImportError:
        return None
    return vlayout


@dataclass(frozen=True)
class BoardInfo:
    id: str
    name: Mapping[str, str] | None
    provisional: bool
    players: tuple[int, ...]
    source: str  # "shipped" or "captured"
    side: str
    game: str = DEFAULT_GAME

    def to_json(self) -> dict[str, Any]:
        return {"id": self.id, "name": dict(self.name) if self.name else None, "provisional": self.provisional,
                "players": list(self.players), "source": self.source, "side": self.side, "game": self.game}


class BoardLibrary:
    """Every game's shipped and captured boards, their drawings, and saving captured boards."""

    def __init__(self, data_dir: Path):
        self.boards_dir = data_dir / "boards"
        self.layouts_dir = data_dir / "layouts"
        self._lock = threading.Lock()
        self._geometry: dict[tuple[str, str], dict[str, Any]] = {}

    # -- the game's kit -------------------------------------------------------------------------
    def kit(self, game: str) -> Any:
        kit = board_kit(game) if isinstance(game, str) else None
        if kit is None:
            raise NotFound(Message.t("web.boards.no_kit", game=str(game)), field="game")
        return kit

    def games(self) -> list[str]:
        """Games with a board kit, in the registry's order."""
        from scorer.core.registry import available_ids

        return [g for g in available_ids() if board_kit(g) is not None]

    # -- reading ---------------------------------------------------------------------------
    def shipped_doc(self, board_id: str, game: str = DEFAULT_GAME) -> dict[str, Any]:
        return self.kit(game).shipped_doc(board_id)

    def _captured_doc(self, board_id: str) -> Any:
        path = _inside(self.boards_dir, f"{board_id}.json")
        if not path.is_file():
            return None
        return safejson.load_file(str(path), f"board {board_id}")

    def captured_ids(self, game: str = DEFAULT_GAME) -> list[str]:
        """Captured data files of ``game`` (by their ``format``), without validating them."""
        kit = self.kit(game)
        if kit.data_format is None or not self.boards_dir.is_dir():
            return []
        out = []
        for p in sorted(self.boards_dir.glob("*.json")):
            if not BOARD_ID.match(p.stem):
                continue
            try:
                doc = safejson.load_file(str(p), f"board {p.stem}")
            except (InvalidRecord, ValueError, OSError):
                continue
            if isinstance(doc, Mapping) and str(doc.get("format", "")).split("/", 1)[0] == kit.data_format:
                out.append(p.stem)
        return out

    def topology(self, board_id: str, game: str = DEFAULT_GAME) -> dict[str, Any]:
        """The data file as JSON (validated); NotFound for an unknown id."""
        check_board_id(board_id)
        kit = self.kit(game)
        if board_id in kit.shipped():
            return kit.shipped_doc(board_id)
        doc = self._captured_doc(board_id) if kit.data_format is not None else None
        if not isinstance(doc, Mapping) or str(doc.get("format", "")).split("/", 1)[0] != kit.data_format:
            raise NotFound(Message.t('web.boards.no_board', board_id=board_id), field="board")
        problems = kit.check(doc)
        if problems:
            raise InvalidRecord(problems[0].en, where=f"board {board_id}")
        return dict(doc)

    def resolve(self, game: str, ref: Any) -> str:
        """A board id from what a game's setup or state names: a shipped id, a captured id, or the
        path of a captured file (its name); the game's default board when it names none."""
        kit = self.kit(game)
        if ref is None or ref == "":
            return kit.default_board()
        text = str(ref)
        if BOARD_ID.match(text):
            return text
        path = Path(text)
        if path.suffix != ".json":
            return check_board_id(text)  # not an id, not a file: refused as a bad id
        if BOARD_ID.match(path.stem) and path.resolve().parent == self.boards_dir.resolve():
            return path.stem
        raise NotFound(Message.t("web.boards.not_here", board=text), field="board")

    def setup_ref(self, board_id: str, game: str = DEFAULT_GAME) -> str:
        """What to put in a game's setup (``board``): a shipped id, or the captured file's path."""
        kit = self.kit(game)
        self.topology(board_id, game)
        if board_id in kit.shipped():
            return board_id
        return str(_inside(self.boards_dir, f"{board_id}.json"))

    def list(self, game: str = DEFAULT_GAME) -> list[BoardInfo]:
        kit = self.kit(game)
        out = []
        for bid in kit.shipped():
            d = kit.describe(kit.shipped_doc(bid))
            out.append(BoardInfo(bid, d.get("name"), bool(d["provisional"]), tuple(d["players"]), "shipped", d.get("side", ""), game))
        for bid in self.captured_ids(game):
            if bid in kit.shipped():
                continue
            try:
                doc = self.topology(bid, game)
            except (InvalidRecord, ValueError, LookupError):
                continue  # a hand-edited file that no longer validates is not offered
            d = kit.describe(doc)
            out.append(BoardInfo(bid, d.get("name"), bool(d["provisional"]), tuple(d["players"]), "captured", d.get("side", ""), game))
        return out

    def layout_doc(self, board_id: str, game: str = DEFAULT_GAME) -> dict[str, Any] | None:
        """The captured layout of a board, else the shipped one, if either exists."""
        check_board_id(board_id)
        candidates = [_inside(self.layouts_dir, f"{board_id}.json")]
        vlayout = _optional_vision()
        if vlayout is not None:
            name = self.kit(game).layout_id(board_id)
            if BOARD_ID.match(name):
                candidates.append(vlayout.LAYOUT_DIR / f"{name}.json")
        for path in candidates:
            if path.is_file():
                return safejson.load_file(str(path), f"layout {board_id}")
        return None

    def geometry(self, board_id: str, game: str = DEFAULT_GAME) -> dict[str, Any]:
        with self._lock:
            cached = self._geometry.get((game, board_id))
        if cached is not None:
            return cached
        topo = self.topology(board_id, game)
        geo = self.kit(game).geometry(topo, self.layout_doc(board_id, game))
        if geo is None:
            raise NotFound(Message.t("web.boards.no_drawing", board=board_id), field="board")
        with self._lock:
            self._geometry[(game, board_id)] = geo
        return geo

    # -- capture ------------------------------------------------------------------------------
    def capture_spec(self, game: str, template: str | None = None) -> dict[str, Any]:
        """What the capture page places for ``game``, starting from a known board (its data and layout)."""
        kit = self.kit(game)
        board_id = template or kit.default_board()
        layout = self.layout_doc(board_id, game)
        spec = kit.capture_spec(self.topology(board_id, game), layout)
        if layout is not None:
            spec.setdefault("template_markers", layout.get("markers"))
        return spec

    def build_capture(self, game: str, capture: Any) -> tuple[dict[str, Any] | None, dict[str, Any]]:
        """The data file and layout a capture describes (a malformed capture is BadInput)."""
        kit = self.kit(game)
        if not isinstance(capture, Mapping):
            raise BadInput(Message.t("web.boards.capture_object"), field="capture")
        template = capture.get("template") or kit.default_board()
        try:
            check_board_id(template, field="capture.template")
            board, layout = kit.capture_build(capture, self.topology(template, game))
            return board, inherit_from_template(layout, self.layout_doc(template, game))
        except InvalidRecord as exc:
            raise BadInput(Message.t("web.boards.capture_malformed", text=str(exc)), field="capture") from None

    def check_capture(self, board: Any, layout: Any, game: str = DEFAULT_GAME) -> list[Message]:
        """Every problem with a captured board (and its layout), as messages."""
        kit = self.kit(game)
        if kit.data_format is None:  # a layout-only game: the layout is the board
            return self._layout_problems(kit.shipped_doc(kit.default_board()), layout, kit) if layout is not None else [
                Message.t("web.boards.layout_missing")]
        if not isinstance(board, dict):
            return [Message.t('web.boards.the_board_must_be_a')]
        problems: list[Message] = []
        bid = board.get("id")
        if not isinstance(bid, str) or not BOARD_ID.match(bid):
            problems.append(Message.t('web.boards.give_the_board_an_id'))
        elif any(bid in self.kit(g).shipped() for g in self.games()):
            problems.append(Message.t('web.boards.is_a_shipped_board_choose', bid=bid))
        else:
            other = self._captured_doc(bid) if self.boards_dir.is_dir() else None
            if isinstance(other, Mapping) and str(other.get("format", "")).split("/", 1)[0] != kit.data_format:
                problems.append(Message.t("web.boards.id_other_game", board=bid))
        problems += kit.check(board)
        if layout is not None:
            problems += self._layout_problems(board, layout, kit)
        return problems

    def _layout_problems(self, board: Mapping[str, Any], layout: Any, kit: Any) -> list[Message]:
        if not isinstance(layout, dict):
            return [Message.t('web.boards.the_layout_must_be_a')]
        out: list[Message] = []
        vlayout = _optional_vision()
        if vlayout is not None:
            try:
                vlayout.layout_from_json(layout, where="layout")
            except InvalidRecord as exc:
                out.append(Message.t('web.boards.layout', exc=exc))
        have = {s.get("id") for s in layout.get("spaces", []) if isinstance(s, dict)}
        try:
            need = kit.spaces(board)
        except (KeyError, TypeError, AttributeError):
            need = ()
        missing = [s for s in need if s not in have]
        if missing:
            out.append(Message.t("web.boards.spaces_not_placed", spaces=tuple(missing)))
        return out

    def save_capture(self, board: Any, layout: Any, *, overwrite: bool = False, game: str = DEFAULT_GAME) -> dict[str, str]:
        kit = self.kit(game)
        problems = self.check_capture(board, layout, game)
        if problems:
            err = BadInput(problems[0], field="board")
            err.problems = problems  # type: ignore[attr-defined]
            raise err
        bid = board["id"] if kit.data_format is not None else kit.default_board()
        bpath = _inside(self.boards_dir, f"{bid}.json")
        lpath = _inside(self.layouts_dir, f"{bid}.json")
        first = bpath if kit.data_format is not None else lpath
        if first.exists() and not overwrite:
            raise Conflict(Message.t('web.boards.a_board_exists_already_tick', bid=bid), field="id")
        written = {}
        if kit.data_format is not None:
            write_private(bpath, (json.dumps(board, indent=1, ensure_ascii=False) + "\n").encode("utf-8"))
            written["board"] = str(bpath)
        if layout is not None:
            write_private(lpath, (json.dumps(layout, indent=1, ensure_ascii=False) + "\n").encode("utf-8"))
            written["layout"] = str(lpath)
        with self._lock:
            self._geometry.pop((game, bid), None)
        return written

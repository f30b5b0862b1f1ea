"""``tableref boards``: list the shipped game data and validate any board, map, deck or price-table
file, or a board layout (where each space lies, docs/boards.md)."""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import Any, Mapping

from scorer.core.schema import read_json
from scorer.core.types import InvalidRecord
from scorer.data_files import data_kinds, summary, validate_file


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("boards", help="list shipped boards/decks/maps or validate a data file",
                       description="Data files hold what is printed on a game's board, cards or tables "
                                   "(docs/boards.md). Their \"format\" field says which game they are for.")
    bsub = p.add_subparsers(dest="boards_command", metavar="ACTION")
    ls = bsub.add_parser("list", help="list the shipped data of every game")
    ls.set_defaults(func=cmd_list)
    val = bsub.add_parser("validate", help="check a board, map, deck or price-table file against its schema and the rules, "
                                           "or a layout against the layout validator and its game's spaces",
                          description="Exit 0 and print a summary if the file is valid; exit 2 with one line naming the problem otherwise.")
    val.add_argument("file", metavar="FILE.json")
    val.set_defaults(func=cmd_validate)
    p.set_defaults(func=lambda args: (p.print_help(), 2)[1])


def cmd_list(args: argparse.Namespace) -> int:
    for kind in data_kinds():
        for ref in kind.shipped:
            obj = kind.load_shipped(ref)
            s = summary(kind, obj)
            flag = " (PROVISIONAL)" if s["provisional"] else ""
            name = s["id"] or f"{kind.game}-{kind.what.replace(' ', '-')} ({ref})"
            if kind.game == "china":
                detail = f"China side {s['side']}, {'/'.join(map(str, obj.player_counts))} players, {s['house_sites']} house sites, {s['roads']} roads"
            else:
                detail = f"{kind.game} {kind.what}" + (f", {s['tables']} tables" if "tables" in s else "")
            print(f"{name}: {detail}{flag}")
    return 0


def cmd_validate(args: argparse.Namespace) -> int:
    doc = read_json(args.file, "data file")
    if isinstance(doc, Mapping) and "format" not in doc and "markers" in doc and "spaces" in doc:
        print(json.dumps({"valid": True, **validate_layout(args.file, doc)}, ensure_ascii=False))
        return 0
    kind, obj = validate_file(args.file)
    print(json.dumps({"valid": True, **summary(kind, obj)}, ensure_ascii=False))
    return 0


def validate_layout(path: str, doc: Mapping[str, Any]) -> dict[str, Any]:
    """A layout through the camera's layout validator, then, when it names its game, against the
    spaces that game's engine reports for its board (the shipped one, or a data file of the same
    name in the ``boards`` folder beside the layout's folder, as the dashboard saves them)."""
    try:
        from vision.layout import layout_from_json
    except ImportError as exc:  # the vision extras (OpenCV) are not installed
        raise InvalidRecord(f"cannot check a layout without the vision package: {exc}", where=path) from None
    from scorer.core.registry import board_kit

    layout = layout_from_json(doc, where=path)
    out: dict[str, Any] = {"kind": "layout", "id": layout.id, "game": doc.get("game"), "board": layout.board,
                           "provisional": layout.provisional, "spaces": len(layout.spaces), "marker_mm": layout.marker_size,
                           "game_spaces_checked": False}
    kit = board_kit(str(doc["game"])) if isinstance(doc.get("game"), str) else None
    if kit is None:
        return out
    board_id = layout.board or kit.default_board()
    sibling = Path(path).resolve().parent.parent / "boards" / f"{board_id}.json"
    if board_id in kit.shipped():
        board = kit.shipped_doc(board_id)
    elif sibling.is_file():
        board = read_json(str(sibling), "data file")
    else:
        return out
    missing = [s for s in kit.spaces(board) if s not in set(layout.space_ids)]
    if missing:
        raise InvalidRecord(f"the layout places no space for {', '.join(missing)} (spaces of board {board_id})", where=path)
    out["game_spaces_checked"] = True
    return out

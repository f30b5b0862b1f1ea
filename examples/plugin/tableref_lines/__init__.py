"""Lines (连线): a toy game shipped as a tableref plugin (see examples/plugin/README.md)."""

from tableref_lines.engine import GAME, LinesGame, Place

__all__ = ["GAME", "LinesGame", "Place"]

"""Exceptions of the vision pipeline. Each also subclasses the matching builtin."""

from __future__ import annotations

from scorer.core.types import InvalidRecord, TableRefError


class VisionError(TableRefError):
    """Root of vision errors."""


class LayoutError(InvalidRecord):
    """A layout file that cannot be used (schema, duplicate ids, markers off the board)."""


class UnreadableImage(VisionError, OSError):
    """A file that is missing or not an image OpenCV can decode."""


class NotRegistered(VisionError, ValueError):
    """The board could not be registered in this frame (markers missing, view too oblique)."""


class CalibrationError(VisionError, ValueError):
    """A colour calibration that cannot be built or read."""


class FrameSetError(VisionError, ValueError):
    """A folder of frames with truth (``tableref vision eval``) that cannot be used; the message
    names the file."""

"""Camera frames -> which pieces stand on which board space: board registration by fiducial
markers, per-table colour calibration, piece recognition (by colour and shape, or by a tag on
each piece), occlusion detection, and a synthetic scene renderer with ground truth for tests and
benchmarks. See docs/vision.md.

Typical use::

    from vision import BoardReader, load_layout
    reader = BoardReader(load_layout("china-a"))
    observation = reader.read(frame_bgr, at=clock()).observation()
"""

from vision.layout import Layout, load_layout
from vision.reader import BoardReader, Detection, Mode, SpaceResult
from vision.registration import Registrar, Registration, RegistrationStatus

__all__ = ["BoardReader", "Detection", "Layout", "Mode", "Registrar", "Registration", "RegistrationStatus",
           "SpaceResult", "load_layout"]

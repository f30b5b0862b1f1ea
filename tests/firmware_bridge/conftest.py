"""Fixtures of the sensor-board tests; the rig itself is in sensor_rig.py."""

from sensor_rig import make_rig  # noqa: F401  (a pytest fixture)

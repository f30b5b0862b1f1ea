"""Sensor-board firmware. ``tablefw/`` is the portable core (MicroPython and CPython); ``main.py``
is the Raspberry Pi Pico entry point and the only file that touches ``machine``.
"""

# tablefw: the portable core of the sensor-board firmware (wire format, scanner, device session).
# Runs unchanged on MicroPython (copied to the Pico as /tablefw) and on CPython (tests, emulator).

"""The sensor board: MicroPython firmware for the microcontroller that scans the NFC antennas
under the board, and the Pi side of its framed, checksummed serial protocol (transport, framer,
session, reconnect policy), producing ``scorer.core.observation.Observation`` values.
"""

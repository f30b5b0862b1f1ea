"""Devices on the Pi behind small interfaces, each with a fake twin: camera sources, GPIO
buttons/LEDs/buzzer (gpiozero), and serial RFID card readers.
"""

"""The Flask dashboard: live scoreboard, board view, alerts, history, new game, devices,
board capture and tag enrolment, in Simplified Chinese and English, fed by server-sent events.
"""

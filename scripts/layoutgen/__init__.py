"""Provisional layouts of Cheops, The Great Wall, Ming and Zhang Yi, generated from each game's
shipped data file (scripts/make_provisional_layouts.py writes them to vision/layouts/).

No measured geometry of these printed boards is public: every millimetre here is invented, in
one visible place, and every layout says ``"provisional": true``. Capture the real board on the
dashboard (docs/boards.md) and the captured layout replaces the shipped one.
"""

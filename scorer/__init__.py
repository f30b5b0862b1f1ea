"""Rules engines, scoring, and reconciling what the sensors saw with what is legal.

``scorer.core`` holds the game-independent values and interface; ``scorer.games.<id>`` one
engine per game; ``scorer.records`` reads and replays JSON game records.
"""

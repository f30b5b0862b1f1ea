"""One package per game, each implementing ``scorer.core.Game`` and registering itself."""

"""Rules engine for Der Kaiser von China (China, Abacus 2005)."""

"""The thin application shell: command line, configuration and wiring of the parts."""

__version__ = "0.1.0"

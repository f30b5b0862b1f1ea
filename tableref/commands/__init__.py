"""Sub-commands of the ``tableref`` CLI, one module each."""

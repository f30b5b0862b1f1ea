"""JSON Schemas shipped with the package (records, boards, layouts)."""

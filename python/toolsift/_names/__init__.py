"""Tool names: the name table that finds the tools a query names (``select:``, the exact-name
tier) and suggests close names."""

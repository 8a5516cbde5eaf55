"""Package data for toolsift: the built-in default tool catalogue (default_catalog.json)."""

"""The state behind :class:`toolsift.DiscoverySession` (``toolsift.session`` is the public
façade): active tools, token budgets and the catalogue summary."""

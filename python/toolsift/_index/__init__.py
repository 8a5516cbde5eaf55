"""The parts of :class:`toolsift.ToolIndex` (``toolsift.index`` is the public façade): a search
call's validated options (``request``), name-driven lookups (``lookups``: ``select:``, the
exact-name tier, the server filter, the keyword ranker), ``explain`` and snapshots with live
copy-on-write updates (``persist``)."""

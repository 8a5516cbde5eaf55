"""The parts of :class:`toolsift.ToolIndex` (``toolsift.index`` is the public façade, whose
methods hand their work to them; its two bases: ``assembly``, the index as wired parts and its
copy-on-write updates, and ``snapshots``, its bytes and files): a search call's validated
options (``request``) and their cache (``calls``, with ``search_many``), name-driven lookups
(``lookups``: ``select:``, the exact-name tier, the server filter, the keyword ranker), the
searchers (``search``, ``regex``), ``explain``, building from raw definitions (``records``) and
snapshots with live copy-on-write updates (``persist``)."""

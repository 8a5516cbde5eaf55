"""The input formats behind ``toolsift.loaders``: reading files (``files``), walking JSON and
JSONL documents (``walk``) and each tool format's conversion to :class:`toolsift.Tool`
(``formats``)."""

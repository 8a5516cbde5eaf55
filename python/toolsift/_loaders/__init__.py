"""The input formats behind ``toolsift.loaders``: reading files (``files``), walking JSON and
JSONL documents (``walk``), each tool format's conversion to :class:`toolsift.Tool`
(``formats``) and the compiled loader that makes the tools of plain MCP items and records in one
call (``compiled``)."""

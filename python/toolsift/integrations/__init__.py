"""Integrations with agent and MCP frameworks; each module imports its framework lazily.

========================================  ===================================================
module                                    what it adds
========================================  ===================================================
:mod:`toolsift.integrations.fastmcp`      ``ToolsiftSearchTransform``: FastMCP's search
                                          transform interface, ranked by toolsift
========================================  ===================================================

Install the MCP extra for them: ``pip install 'toolsift[mcp]'``.

Example:
    >>> import toolsift.integrations
    >>> toolsift.integrations.__name__
    'toolsift.integrations'
"""

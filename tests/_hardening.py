"""The three-tool catalogue the hardening tests share, and an index over it for either engine."""

from __future__ import annotations

from toolsift import Tool, ToolIndex

TOOLS = [
    Tool(name="read_file", description="Read a file from disk"),
    Tool(name="write_file", description="Write a file to disk"),
    Tool(name="mcp__slack__send", description="Send a message", server="slack",
         mcp_tool_name="send"),
]  # fmt: skip


def hardening_index(engine: str, **kwargs) -> ToolIndex:
    """``ToolIndex(TOOLS, engine=engine, **kwargs)``."""
    return ToolIndex(TOOLS, engine=engine, **kwargs)  # type: ignore[arg-type]

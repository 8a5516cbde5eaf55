"""Integrations with agent and MCP frameworks; each module imports its framework lazily.

==========================================  ==================================================
module                                      what it adds
==========================================  ==================================================
:mod:`toolsift.integrations.fastmcp`        ``ToolsiftSearchTransform``: FastMCP's search
                                            transform interface, ranked by toolsift
:mod:`toolsift.integrations.langgraph`      ``ToolsiftToolRetrieval``: langgraph-bigtool's
                                            retrieval functions; ``ToolsiftRetriever``: a
                                            LangChain retriever
:mod:`toolsift.integrations.openai_agents`  ``ToolsiftToolSearch``: OpenAI Agents SDK function
                                            tools enabled by the model's searches
:mod:`toolsift.integrations.pydantic_ai`    ``toolsift_tool_search()``: PydanticAI's
                                            ``ToolSearch`` capability with toolsift's strategy
:mod:`toolsift.integrations.llamaindex`     ``ToolsiftObjectRetriever``: a LlamaIndex agent's
                                            ``tool_retriever``
==========================================  ==================================================

Each has its extra: ``pip install 'toolsift[mcp]'`` (FastMCP), ``'toolsift[langgraph]'``,
``'toolsift[openai-agents]'``, ``'toolsift[pydantic-ai]'``, ``'toolsift[llamaindex]'``.

Example:
    >>> import toolsift.integrations
    >>> toolsift.integrations.__name__
    'toolsift.integrations'
"""

"""``ToolsiftSearchTransform``: a drop-in for FastMCP's search transforms, ranked by toolsift.

FastMCP's ``mcp.add_transform(BM25SearchTransform())`` replaces a server's tool list with two
tools, ``search_tools`` and ``call_tool``; this transform keeps that interface and its options
(``max_results``, ``always_visible``, the two tool names, ``search_result_serializer``) and ranks
with toolsift: BM25+ over weighted fields, ``select:A,B`` exact lookups, ``+required`` words,
the exact-name tier, a score ``threshold`` and an analysis ``profile``.

The index is built once and reused while the catalogue stays the same: each search compares
the tool objects FastMCP hands over with the indexed ones by identity (one pointer comparison
per tool), and only when they differ compares names, descriptions and schemas; the index is
rebuilt only if one of those really changed. No search hashes the catalogue.

A tool over toolsift's input caps (:mod:`toolsift.limits`: a name over 1,024 characters, a
description over 1,000,000, a schema nested deeper than 64 levels) is left out of the index, with
one warning naming it and the cap; it stays listed and callable through ``call_tool``, and every
other tool stays searchable.

A ``select:`` name that matches no tool, or a query cut at the length cap, is reported in a
second text block after the definitions (``{"missing": [...], "suggestions": {...}}``, see
``docs/contracts.md``); the first block and the structured result are FastMCP's, unchanged.

FastMCP lists the whole server for every search (providers, transforms, visibility, ``auth``,
middleware; a proxy lists its remote server over MCP): at 10k tools that costs far more than
the search. On a server whose listing cannot depend on the caller (local tools, mounted servers
and proxied remote servers; no filtering middleware, no ``auth`` checks, no per-session
visibility rules), the transform keeps the catalogue it last listed until a local tool,
transform or middleware changes, or a remote server sends ``notifications/tools/list_changed``;
a remote that does not announce changes is listed again every ``refresh_interval`` seconds. Any
other server is listed on every call, as FastMCP does (see
``toolsift.integrations._fastmcp_catalog``).

Example:
    >>> from fastmcp import FastMCP
    >>> from toolsift.integrations.fastmcp import ToolsiftSearchTransform
    >>> mcp = FastMCP("Server")
    >>> mcp.add_transform(ToolsiftSearchTransform(max_results=3))
"""

import logging
import math
import operator
import threading
from collections.abc import Sequence
from typing import Annotated, Any, Literal

from fastmcp.server.context import Context
from fastmcp.server.transforms.search.base import BaseSearchTransform, SearchResultSerializer
from fastmcp.tools.base import Tool as FastMCPTool
from fastmcp.tools.base import ToolResult
from mcp.types import TextContent
from pydantic import Field

from .._session.options import _check_min_confidence, _check_semantic
from ..config import ToolSearchConfig
from ..contract import dumps, search_notes
from ..errors import ToolDefinitionError
from ..index import DEFAULT_MAX_LIMIT, ToolIndex
from ..result import SearchResult
from ..session import NO_MATCH_MESSAGE
from ..tools import Tool
from ._fastmcp_catalog import CatalogCache

__all__ = ["ToolsiftSearchTransform", "to_toolsift_tool"]

_log = logging.getLogger(__name__)
#: Seconds a remote server's catalogue is reused when the remote does not announce changes.
DEFAULT_REFRESH_INTERVAL = 30.0
#: The most names of left-out tools a transform remembers having warned about.
_WARNED_MAX = 4096


def to_toolsift_tool(tool: Any) -> Tool:
    """A FastMCP tool as a :class:`toolsift.Tool` of the same name (description, parameters,
    title and, where FastMCP has one, its tags as a search hint).

    Example:
        >>> from fastmcp.tools import Tool as FastMCPTool
        >>> to_toolsift_tool(FastMCPTool.from_function(lambda x: x, name="echo")).name
        'echo'
    """
    tags = getattr(tool, "tags", None)
    return Tool(
        name=tool.name,
        description=tool.description or "",
        input_schema=tool.parameters or {"type": "object", "properties": {}},
        title=getattr(tool, "title", None) or None,
        search_hint=" ".join(sorted(tags)) if tags else None,
    )


def _same_definition(a: Any, b: Any) -> bool:
    return (
        a.name == b.name
        and a.description == b.description
        and a.parameters == b.parameters
        and getattr(a, "title", None) == getattr(b, "title", None)
        and getattr(a, "tags", None) == getattr(b, "tags", None)
    )


class _Indexed:
    """One built index and the FastMCP tool objects it was built from (same order)."""

    __slots__ = ("objects", "index", "by_name")

    def __init__(self, objects: tuple[Any, ...], index: ToolIndex) -> None:
        self.objects = objects
        self.index = index
        self.by_name = {t.name: t for t in objects}


class ToolsiftSearchTransform(BaseSearchTransform):
    """FastMCP's search transform interface (``search_tools`` + ``call_tool``), ranked by toolsift.

    Arguments:
        max_results: how many tools a search returns when the model gives no ``limit``.
        always_visible: tool names that stay listed beside the two synthetic tools.
        search_tool_name, call_tool_name: the names of the two synthetic tools.
        search_result_serializer: FastMCP's serializer of the matched tools (default: the
            ``list_tools`` JSON of each).
        threshold: drop ranked matches scoring below this (0.0 = off).
        profile: the analysis profile, ``"english"`` (default) or ``"omp"``.
        max_limit: the cap on the model's ``limit`` (also the schema's ``maximum``).
        engine: the ranking engine (``"auto"``, ``"rust"``, ``"python"``).
        semantic: semantic ranking: ``True``, ``False`` or ``"auto"`` (default: on when the
            ``toolsift[semantic]`` extra is installed; see :class:`~toolsift.ToolIndex`).
        min_confidence: "nothing fits": when the best match is less confident than this
            (0..1), ``search_tools`` returns no tools but a message telling the model to
            rephrase or go on without a tool; ``None`` is the fitted default, 0 never abstains.
        refresh_interval: seconds the catalogue listed from a proxied remote server is reused
            before the server is listed again (default 30; 0 lists it on every call). A
            remote that announces its changes (``tools.listChanged``) is also listed again as
            soon as it sends ``notifications/tools/list_changed``.
        config: a :class:`~toolsift.config.ToolSearchConfig` giving ``max_results``,
            ``always_available`` (as ``always_visible``), ``threshold``, ``profile``,
            ``max_limit``, ``semantic`` and ``min_confidence`` unless those arguments are given.

    Example:
        >>> from fastmcp import FastMCP
        >>> mcp = FastMCP("Server")
        >>> mcp.add_transform(ToolsiftSearchTransform(always_visible=["ping"]))
    """

    def __init__(
        self,
        *,
        max_results: int | None = None,
        always_visible: list[str] | None = None,
        search_tool_name: str = "search_tools",
        call_tool_name: str = "call_tool",
        search_result_serializer: SearchResultSerializer | None = None,
        threshold: float | None = None,
        profile: str | None = None,
        max_limit: int | None = None,
        engine: str = "auto",
        semantic: bool | Literal["auto"] | None = None,
        min_confidence: float | None = None,
        refresh_interval: float = DEFAULT_REFRESH_INTERVAL,
        config: ToolSearchConfig | None = None,
    ) -> None:
        base = config or ToolSearchConfig(max_results=5)
        if always_visible is None and config is not None:
            always_visible = list(config.always_available)
        super().__init__(
            max_results=max_results if max_results is not None else base.max_results,
            always_visible=always_visible,
            search_tool_name=search_tool_name,
            call_tool_name=call_tool_name,
            search_result_serializer=search_result_serializer,
        )
        self._threshold = float(threshold if threshold is not None else base.threshold)
        self._profile = profile or base.profile
        self._max_limit = max_limit or (base.max_limit if config else DEFAULT_MAX_LIMIT)
        self._engine = engine
        self._semantic = _check_semantic(semantic if semantic is not None else base.semantic)
        self._min_confidence = _check_min_confidence(
            min_confidence if min_confidence is not None else base.min_confidence
        )
        self._indexed: _Indexed | None = None
        self._catalog = CatalogCache(self._always_visible, _check_interval(refresh_interval))
        self._synthetic: dict[str, FastMCPTool] = {}
        self._build_lock = threading.Lock()
        self._warned: set[str] = set()  # names of left-out tools already warned about
        #: How many times the index was built (a catalogue change rebuilds it once).
        self.builds = 0

    @property
    def listings(self) -> int:
        """How many times a search or ``call_tool`` listed the whole server."""
        return self._catalog.listings

    # --- the catalogue -------------------------------------------------------------------------

    async def get_tool_catalog(
        self, ctx: Context, *, run_middleware: bool = True
    ) -> Sequence[FastMCPTool]:
        """FastMCP's catalogue for ``ctx``'s caller, kept while nothing can change it."""
        if not run_middleware:
            return await super().get_tool_catalog(ctx, run_middleware=False)
        return await self._catalog.catalog(self, super().get_tool_catalog, ctx)

    async def _get_visible_tools(self, ctx: Context) -> Sequence[FastMCPTool]:
        return await self._catalog.visible(self, super().get_tool_catalog, ctx)

    # --- the synthetic tools -------------------------------------------------------------------

    def _make_call_tool(self) -> FastMCPTool:
        tool = self._synthetic.get("call")
        if tool is None:
            tool = self._synthetic["call"] = super()._make_call_tool()
        return tool

    def _make_search_tool(self) -> FastMCPTool:
        tool = self._synthetic.get("search")
        if tool is None:
            tool = self._synthetic["search"] = self._new_search_tool()
        return tool

    def _new_search_tool(self) -> FastMCPTool:
        transform = self
        maximum = self._max_limit

        async def search_tools(
            query: Annotated[
                str,
                "Natural-language or keyword query. `select:NAME1,NAME2` fetches tools by exact "
                "name; a `+word` must appear in every result.",
            ],
            limit: int | None = None,
            ctx: Context = None,  # type: ignore[assignment]
        ) -> str | list[dict[str, Any]]:
            """Search for tools by what they do; returns matching tool definitions ranked by
            relevance, in the same format as list_tools. Call one with call_tool. When no tool
            fits the request, it says so: rephrase, or go on without a tool."""
            hidden = await transform._get_visible_tools(ctx)
            found, result = transform._ranked(hidden, query, limit)
            if result.abstained:  # nothing fits: say so rather than list weak matches
                return NO_MATCH_MESSAGE
            rendered = await transform._render_results(found)
            report = search_notes(result)
            if not report:
                return rendered  # type: ignore[no-any-return]
            # Something the model asked for was not found (or was cut): say so after the
            # definitions, which stay the first block and the structured result.
            first = rendered if isinstance(rendered, str) else dumps(rendered)
            return ToolResult(  # type: ignore[return-value]
                content=[
                    TextContent(type="text", text=first),
                    TextContent(type="text", text=dumps(report)),
                ],
                structured_content={"result": rendered},
            )

        # The limit's schema carries this transform's cap, fixed when the tool is made.
        search_tools.__annotations__["limit"] = Annotated[
            int | None,
            Field(
                ge=1,
                le=maximum,
                description=f"How many tools to return (default {transform._max_results}, "
                f"at most {maximum}).",
            ),
        ]
        return FastMCPTool.from_function(fn=search_tools, name=self._search_tool_name)

    async def _search(self, tools: Sequence[FastMCPTool], query: str) -> Sequence[FastMCPTool]:
        """FastMCP's search hook: the best ``max_results`` tools for ``query``."""
        return self._rank(tools, query, None)

    def _rank(
        self, tools: Sequence[FastMCPTool], query: str, limit: int | None
    ) -> list[FastMCPTool]:
        return self._ranked(tools, query, limit)[0]

    def _ranked(
        self, tools: Sequence[FastMCPTool], query: str, limit: int | None
    ) -> tuple[list[FastMCPTool], SearchResult]:
        """The matched FastMCP tools, best first, and toolsift's result (``missing``,
        ``abstained``...)."""
        indexed = self._index_for(tools)
        options: dict[str, Any] = {"max_limit": self._max_limit}
        if self._threshold:
            options["threshold"] = self._threshold
        if self._min_confidence != 0:  # None: the fitted default; 0: never abstain
            options["abstain"] = True
            options["min_confidence"] = self._min_confidence
        result = indexed.index.search(query, limit or self._max_results, **options)
        return [indexed.by_name[m.tool.name] for m in result], result

    # --- the index -----------------------------------------------------------------------------

    def _index_for(self, tools: Sequence[FastMCPTool]) -> _Indexed:
        """The index of ``tools``: the current one when the catalogue is unchanged."""
        objects = tools if isinstance(tools, tuple) else tuple(tools)
        indexed = self._indexed
        if indexed is not None and (
            indexed.objects is objects or _unchanged(indexed.objects, objects)
        ):
            return indexed
        with self._build_lock:
            indexed = self._indexed
            if indexed is not None and _unchanged(indexed.objects, objects):
                return indexed
            if indexed is not None and _same_catalogue(indexed.objects, objects):
                # New objects for the same definitions (a provider that re-creates its tools
                # on every listing): keep the index, remember the objects to return.
                fresh = _Indexed(objects, indexed.index)
            else:
                index = ToolIndex(
                    self._indexable(_dedupe(objects)),
                    engine=self._engine,  # type: ignore[arg-type]
                    profile=self._profile,  # type: ignore[arg-type]
                    semantic=self._semantic,
                )
                fresh = _Indexed(objects, index)
                self.builds += 1
            self._indexed = fresh
            return fresh

    def _indexable(self, catalogue: list[Any]) -> list[Tool]:
        """The toolsift tools of ``catalogue``, without those over the input caps (each warned
        about once: FastMCP still lists it and ``call_tool`` still calls it)."""
        out: list[Tool] = []
        for tool in catalogue:
            try:
                out.append(to_toolsift_tool(tool))
            except ToolDefinitionError as exc:
                name = str(tool.name)
                if name not in self._warned:
                    if len(self._warned) >= _WARNED_MAX:
                        self._warned.clear()
                    self._warned.add(name)
                    _log.warning(
                        "search_tools leaves out tool %.80r (it stays callable): %s", name, exc
                    )
        return out


def _check_interval(value: object) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise TypeError(f"refresh_interval must be a number of seconds, got {type(value).__name__}")
    seconds = float(value)
    if not (math.isfinite(seconds) and seconds >= 0):
        raise ValueError(f"refresh_interval must be 0 or more seconds, got {value!r}")
    return seconds


def _unchanged(old: tuple[Any, ...], new: tuple[Any, ...]) -> bool:
    """The very same tool objects, in the same order (one pointer comparison per tool)."""
    return len(old) == len(new) and all(map(operator.is_, old, new))


def _same_catalogue(old: tuple[Any, ...], new: tuple[Any, ...]) -> bool:
    if len(old) != len(new):
        return False
    return all(a is b or _same_definition(a, b) for a, b in zip(old, new))


def _dedupe(tools: tuple[Any, ...]) -> list[Any]:
    """One tool per name (FastMCP's catalogue is already deduplicated; be safe)."""
    seen: dict[str, Any] = {}
    for tool in tools:
        seen.setdefault(tool.name, tool)
    return list(seen.values())

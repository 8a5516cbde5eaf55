"""What the dashboard shows and changes, over a live gateway or a fixed catalogue.

:class:`Dashboard` reads the catalogue and the client sessions from the gateway's
:class:`~toolsift.gateway.sessions.SessionRegistry`, runs trial searches on a fresh session made
by the same factory (:func:`~toolsift.gateway.sessions.new_session`) so that a trial never
activates anything for a real client, and applies new ``tool_search`` settings live: validated
by :func:`toolsift.config.parse_tool_search`, applied to every client session, and optionally
written with :func:`toolsift.config.save_config`. Everything returns plain JSON values.

Example:
    >>> from toolsift import default_tools
    >>> from toolsift.config import ToolSearchConfig
    >>> board = Dashboard.for_tools(default_tools(), ToolSearchConfig())
    >>> board.search("open a pull request", limit=1)["matches"][0]["name"]
    'mcp__github__create_pull_request'
"""

from __future__ import annotations

import asyncio
import logging
import threading
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import replace
from typing import TYPE_CHECKING, Any

from .._text.analysis import PROFILES
from ..config import ToolSearchConfig, parse_tool_search, save_config
from ..contract import anthropic_tool_result, search_tool_bm25_details, tool_search_response
from ..errors import ConfigError
from ..explain import Explanation
from ..gateway.sessions import SessionRegistry, new_session
from ..gateway.storage import SharedStore, searches_value
from ..metatool import call_meta_tool, meta_tool
from ..tokens import tool_tokens
from ..tools import Tool

if TYPE_CHECKING:
    from ..gateway.server import Gateway

__all__ = ["Dashboard", "CONTRACTS", "BUILTIN_SERVER"]

log = logging.getLogger("toolsift.dashboard")

#: The response formats a trial search can show, as the model would receive them.
CONTRACTS = ("search_tool_bm25", "details", "toolsearch", "anthropic")
#: The catalogue key of tools that belong to no MCP server.
BUILTIN_SERVER = "(built-in)"
#: The settings the page edits; ``style`` and ``meta_tool_name`` need a restart.
EDITABLE = (
    "enabled",
    "mode",
    "always_available",
    "max_results",
    "max_limit",
    "threshold",
    "profile",
    "gate",
    "regex_tool",
    "rate_limit",
    "call_timeout",
    "semantic",
    "min_confidence",
)
_MODES = ("all", "mcp-only", "auto", "off")
#: ``tool_search.semantic``'s values, as the page offers them (JSON values, not labels).
_SEMANTIC = ("auto", True, False)


class Dashboard:
    """The dashboard's view of one catalogue and its settings.

    Arguments:
        registry: the client sessions and the catalogue (a gateway's, or one made for a
            catalogue file by :meth:`for_tools`).
        gateway: the live gateway, whose servers and settings the page shows and changes.
        config_path: where "save" writes the ``tool_search`` block (``None``: saving is off).
        source: what the catalogue is, in words (shown on the page).
    """

    def __init__(
        self,
        registry: SessionRegistry,
        *,
        gateway: Gateway | None = None,
        config_path: str | None = None,
        source: str = "",
    ) -> None:
        self.registry = registry
        self.gateway = gateway
        self.config_path = config_path
        self.source = source or ("live gateway" if gateway is not None else "catalogue")
        #: What every client of one catalogue generation shares (see _catalog_totals).
        self._totals: tuple[Any, tuple[int, int, int, frozenset[str]]] | None = None
        self._totals_lock = threading.Lock()

    @classmethod
    def from_gateway(cls, gateway: Gateway, config_path: str | None = None) -> Dashboard:
        """The dashboard of a running gateway (saving to ``config_path``, default its config)."""
        path = config_path if config_path is not None else gateway.config.path
        return cls(gateway.registry, gateway=gateway, config_path=path, source="live gateway")

    @classmethod
    def for_tools(
        cls,
        tools: Iterable[Tool],
        settings: ToolSearchConfig,
        *,
        config_path: str | None = None,
        source: str = "catalogue",
    ) -> Dashboard:
        """A dashboard over a fixed catalogue (no live servers, no clients)."""
        registry = SessionRegistry(settings)
        by_server: dict[str, list[Tool]] = {}
        for tool in tools:
            by_server.setdefault(tool.server or BUILTIN_SERVER, []).append(tool)
        for server, server_tools in by_server.items():
            registry.set_server(server, server_tools)
        return cls(registry, config_path=config_path, source=source)

    @property
    def settings(self) -> ToolSearchConfig:
        return self.gateway.settings if self.gateway is not None else self.registry.config

    # --- the catalogue -------------------------------------------------------------------------

    def catalog(self) -> dict[str, Any]:
        """The servers (tool counts, schema tokens, connection state) and every tool."""
        catalog = self.registry.catalog
        servers = []
        tools = []
        names = list(catalog)
        if self.gateway is not None:
            names += [n for n in self.gateway.downstreams if n not in catalog]
        for name in names:
            server_tools = catalog.get(name, ())
            sizes = [tool_tokens(t) for t in server_tools]
            servers.append(
                {
                    "name": name,
                    "tools": len(server_tools),
                    "schema_tokens": sum(sizes),
                    **self._connection(name),
                }
            )
            for tool, size in zip(server_tools, sizes):
                tools.append(
                    {
                        "name": tool.name,
                        "server": tool.server,
                        "title": tool.title,
                        "description": tool.description,
                        "schema_tokens": size,
                    }
                )
        return {
            "source": self.source,
            "live": self.gateway is not None,
            "servers": servers,
            "tools": tools,
            "total_tools": len(tools),
            "total_schema_tokens": sum(s["schema_tokens"] for s in servers),
        }

    def _connection(self, server: str) -> dict[str, Any]:
        if self.gateway is None:
            return {"state": "offline", "error": None}
        state = self.gateway.catalog.servers().get(server)
        if state is None:
            return {"state": "offline", "error": None}
        # connecting, connected or failed (with its last error), and the tools it refused.
        return {k: state[k] for k in ("state", "error", "connections", "refused")}

    def tool(self, name: str) -> dict[str, Any] | None:
        """A tool's full definition (as ``tools/list`` gives it, under its canonical name)."""
        found = self.registry.find(name)
        if found is None:
            return None
        return {
            "name": found.name,
            "server": found.server,
            "schema_tokens": tool_tokens(found),
            "definition": {**found.to_mcp(), "name": found.name},
        }

    # --- trial searches ------------------------------------------------------------------------

    def search(
        self, query: Any, limit: Any = None, contract: str = "search_tool_bm25"
    ) -> dict[str, Any]:
        """A search as a new client would make it now, with each score explained.

        Raises:
            QueryError, LimitError, DiscoveryError: as the meta-tool call raises them.
            ValueError: an unknown ``contract``.
        """
        if contract not in CONTRACTS:
            raise ValueError(f"contract must be one of {', '.join(CONTRACTS)}, got {contract!r}")
        settings = self.settings
        shared = self.registry.shared
        session = new_session(shared, settings)
        arguments: dict[str, Any] = {"query": query}
        if limit is not None:
            arguments["limit"] = limit
        # The index the session searches: the shared catalogue's (its visible tools are left
        # out of the search, which changes no score).
        index = shared.index
        call = call_meta_tool(session, arguments)
        result = call.result
        suggestions: Mapping[str, tuple[str, ...]] = {}
        if result.query_kind == "select" and result.missing:
            suggestions = index.search(result.query, result.limit).suggestions
        ranked = [m for m in result.matches if m.reason != "select"]
        best = max((m.score for m in ranked), default=0.0)
        matches = []
        for rank, match in enumerate(result.matches, 1):
            explanation = None
            if match.reason in ("bm25", "exact_name") and match.tool.name in index:
                explanation = _explanation(index.explain(result.query, match.tool.name))
            matches.append(
                {
                    "rank": rank,
                    "name": match.tool.name,
                    "server": match.tool.server,
                    "description": match.tool.description,
                    "reason": match.reason,
                    "score": match.score,
                    "normalized_score": (
                        match.score / best if match.reason != "select" and best > 0 else None
                    ),
                    "explanation": explanation,
                }
            )
        if contract == "search_tool_bm25":
            response: Any = call.content
        elif contract == "details":
            response = search_tool_bm25_details(result)
        elif contract == "toolsearch":
            response = tool_search_response(result)
        else:
            response = anthropic_tool_result(result, "toolu_dashboard")
        return {
            "query": result.query,
            "kind": result.query_kind,
            "limit": result.limit,
            "total_tools": result.total_tools,
            "matches": matches,
            "already_active": list(result.already_active),
            "missing": list(result.missing),
            "suggestions": {k: list(v) for k, v in suggestions.items()},
            "contract": contract,
            "response": response,
        }

    # --- settings ------------------------------------------------------------------------------

    def settings_view(self) -> dict[str, Any]:
        """The current settings, which of them the page edits, and their choices (JSON values);
        ``semantic_on``: whether the catalogue's index ranks by meaning now (what ``"auto"``
        came to, or ``false`` when the model could not load)."""
        return {
            "settings": self.settings.to_dict(),
            "editable": list(EDITABLE),
            "restart_only": ["style", "meta_tool_name", "allowed_origins"],
            "choices": {
                "mode": list(_MODES),
                "profile": sorted(PROFILES),
                "semantic": list(_SEMANTIC),
            },
            "semantic_on": self.registry.shared.index.semantic,
            "config_path": self.config_path,
            "saveable": self.config_path is not None,
        }

    async def update(self, changes: Any, *, save: bool = False, who: str = "?") -> dict[str, Any]:
        """Validate ``changes`` (a partial ``tool_search`` mapping) as a config file's block,
        apply them live, and with ``save`` write them to the config file.

        Nothing is applied or saved when a value is invalid; a failed save undoes the change.

        Raises:
            ConfigError: an invalid value (``key`` names it), or ``save`` without a config
                file.
            OSError: the config file cannot be written.
        """
        if not isinstance(changes, Mapping):
            raise ConfigError("the settings must be a JSON object", key="tool_search")
        if "token" in changes:
            raise ConfigError(
                "the token is set in the config file, --token or $TOOLSIFT_TOKEN, not here",
                key="token",
            )
        old = self.settings
        merged = {**old.to_dict(), **changes}
        if "rate_limit" in changes and changes["rate_limit"] in (None, "", "off"):
            merged["rate_limit"] = None
        new = replace(parse_tool_search(merged), token=old.token)
        if save and self.config_path is None:
            raise ConfigError(
                "there is no config file to save to: start the dashboard with one",
                key="tool_search",
            )
        await self._apply(new)
        diff = _diff(old, new)
        if diff:
            log.info("settings changed by %s: %s", who, diff)
        if save:
            try:
                save_config(new, self.config_path)  # type: ignore[arg-type]
            except BaseException:
                await self._apply(old)
                log.warning(
                    "settings change by %s undone: %s could not be written", who, self.config_path
                )
                raise
            log.info("settings saved by %s to %s", who, self.config_path)
        return self.settings_view()

    async def _apply(self, settings: ToolSearchConfig) -> None:
        if self.gateway is not None:
            await self.gateway.apply_settings(settings)
        else:
            self.registry.reconfigure(settings)

    # --- client sessions -----------------------------------------------------------------------

    def sessions(self) -> list[dict[str, Any]]:
        """The connected clients, latest active first: activated tools, searches, token
        savings, and the replica that served each last. Ended sessions are left out; the
        catalogue's totals are computed once per catalogue generation, so this costs
        O(clients × their visible tools). With a shared store, see :meth:`shared_sessions`."""
        replica = self.gateway.replica if self.gateway is not None else ""
        return [
            self._row(
                state.key,
                state.created,
                state.session.selected,
                searches_value(reversed(state.searches)),
                replica,
            )
            for state in reversed(self.registry.states())
            if not state.ended
        ]

    @property
    def store(self) -> SharedStore | None:
        """The gateway's shared state store (``None``: each process keeps its clients)."""
        return self.gateway.store if self.gateway is not None else None

    async def shared_sessions(self) -> list[dict[str, Any]]:
        """:meth:`sessions` of every replica: the clients in the shared store, latest seen
        first, each with the replica that served it last.

        Raises:
            StoreError: the store does not answer.
        """
        store = self.store
        if store is None:
            return await asyncio.to_thread(self.sessions)
        clients = await store.clients()
        # Off the event loop: the gateway's MCP traffic never waits for this page's poll.
        return await asyncio.to_thread(
            lambda: [
                self._row(c.key, c.created, c.activated, c.searches[::-1], c.replica)
                for c in clients
            ]
        )

    def _row(
        self,
        key: str,
        created: float,
        activated: Sequence[str],
        searches: list[dict[str, Any]],
        replica: str,
    ) -> dict[str, Any]:
        every, count, base_sent, base_visible = self._catalog_totals()
        template = self.registry.template
        extra = [
            tool
            for name in activated
            if name not in base_visible and (tool := template.find_tool(name)) is not None
        ]
        sent = base_sent + (template.schema_tokens(extra) if extra else 0)
        return {
            "key": key,
            "created": created,
            "replica": replica,
            "activated": list(activated),
            "visible": len(base_visible) + len(extra),
            "tools": count,
            "searches": searches,
            "tokens": {"all_schemas": every, "sent": sent, "saved": every - sent},
        }

    def _catalog_totals(self) -> tuple[int, int, int, frozenset[str]]:
        """What every client of the current catalogue generation and settings shares,
        computed once per generation: the schema tokens and number of all tools, the tokens a
        new client is sent (the meta-tool and the always-visible tools) and those tools'
        names. A client adds the tokens of the tools it activated."""
        registry = self.registry
        template = registry.template
        shared = registry.shared
        key = (shared, shared.generation, registry.config)
        with self._totals_lock:
            cached = self._totals
            if cached is not None and cached[0] == key:
                return cached[1]
        visible = template.visible_tools
        totals = (
            template.schema_tokens(),
            len(template.tools),
            tool_tokens(meta_tool(template)) + template.schema_tokens(visible),
            frozenset(t.name for t in visible),
        )
        with self._totals_lock:
            self._totals = (key, totals)
        return totals


def _explanation(why: Explanation) -> dict[str, Any]:
    return {
        "score": why.score,
        "terms": [
            {
                "term": t.display,
                "matched": t.matched.removeprefix("\u00a7"),  # a stem's marker
                "prefix": t.prefix,
                "qtf": t.qtf,
                "idf": t.idf,
                "tf": t.tf,
                "norm": t.norm,
                "contribution": t.contribution,
                "fields": dict(t.fields),
            }
            for t in why.terms
        ],
    }


def _diff(old: ToolSearchConfig, new: ToolSearchConfig) -> str:
    before, after = old.to_dict(), new.to_dict()
    changed = [
        f"{key}: {before.get(key)!r} -> {after.get(key)!r}"
        for key in dict.fromkeys([*before, *after])
        if before.get(key) != after.get(key)
    ]
    return "; ".join(changed)

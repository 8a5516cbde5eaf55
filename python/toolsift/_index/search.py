"""The search run of one :class:`toolsift.ToolIndex` (a collaborator it holds): a call's
options resolved to a request, then ``select:``, the exact-name tier, the ranker and the gates
that act on the whole result, on the index's engine.

Example:
    >>> from toolsift import Tool, ToolIndex
    >>> index = ToolIndex([Tool(name="read_file", description="Read a file")])
    >>> searcher = index._searcher
    >>> request = searcher.request(8, (), None, "bm25", True, 0.5, 3, 16, 0.0, 0.0, False,
    ...                            False, 25, 500)
    >>> [m.name for m in searcher.search_one(parse_query("read"), request)]
    ['read_file']
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable, Mapping, Sequence
from typing import TYPE_CHECKING, Any, Literal

from .._options import MAX_COUNT_OPTION, SearchOptions, check_flag, check_names
from .._snapshot.tools_section import LazyTools
from .._text.documents import FieldWeights, scored_text
from ..query import ParsedQuery, cut_notice, parse_query
from ..result import Match, SearchResult
from ..tools import Tool
from .lookups import _NEW_MATCHES, NameLookups
from .request import _Request

if TYPE_CHECKING:
    from .._engine.protocol import EngineIndex

__all__ = ["Ranker", "Searcher"]

Ranker = Literal["bm25", "keyword", "regex"]


class Searcher:
    """Runs :meth:`toolsift.ToolIndex.search` and ``search_many`` once their options are known.

    Arguments:
        tools: the index's tools.
        by_name: tool id by canonical name.
        engine: the engine's name, ``"rust"`` or ``"python"``.
        index: the engine index over the same tools.
        field_weights: the index's field weights.
        lookups: the index's name-driven parts (``select:``, exact names, servers, keyword).
    """

    def __init__(
        self,
        tools: Sequence[Tool] | LazyTools,
        by_name: Mapping[str, int],
        engine: str,
        index: EngineIndex,
        field_weights: FieldWeights,
        lookups: NameLookups,
    ) -> None:
        self._tools = tools
        self._by_name = by_name
        self.engine = engine
        self._index = index
        self.field_weights = field_weights
        self._lookups = lookups

    def request(
        self,
        limit: int,
        exclude: Iterable[str],
        servers: Iterable[str] | None,
        ranker: Ranker,
        exact_names: bool,
        prefix_fraction: float,
        prefix_min_len: int,
        max_expansions: int,
        threshold: float,
        relative_floor: float,
        coverage: bool,
        normalize: bool,
        max_limit: int,
        max_query_length: int,
    ) -> _Request:
        """The options of :meth:`search`, validated and resolved to tool ids once per call."""
        # Same checks and messages for both engines, whichever ranker runs; the engines get the
        # checked values (floats, capped counts, a bool), never what the caller passed.
        checked = SearchOptions(
            None, None, None, prefix_fraction, prefix_min_len, max_expansions,
            threshold, relative_floor, coverage,
        )  # fmt: skip
        exact_names = check_flag(exact_names, "exact_names")
        normalize = check_flag(normalize, "normalize")
        exclude = check_names(exclude, "exclude")
        if servers is not None:
            servers = check_names(servers, "servers")
        prefix_fraction = checked.prefix_fraction
        prefix_min_len = checked.prefix_min_len
        max_expansions = checked.max_expansions
        threshold = checked.threshold
        relative_floor = checked.relative_floor
        clamped = limit > max_limit
        allowed, include = self._lookups.allowed(servers)
        excluded = frozenset(i for i in map(self._by_name.get, exclude) if i is not None)
        notices = (f"limit {limit} clamped to {max_limit}",) if clamped else ()
        plain = ranker == "bm25" and not relative_floor and not normalize
        return _Request(
            limit=max_limit if clamped else limit,
            max_limit=max_limit,
            notices=notices,
            clamped=clamped,
            max_query_length=max_query_length,
            allowed=allowed,
            excluded=excluded,
            excluded_sorted=tuple(sorted(excluded)) or None,
            ranker=ranker,
            exact_names=exact_names,
            prefix={
                "prefix_fraction": prefix_fraction,
                "prefix_min_len": prefix_min_len,
                "max_expansions": max_expansions,
            },
            include=include,
            threshold=threshold,
            relative_floor=relative_floor,
            coverage=coverage,
            normalize=normalize,
            plain_fields=(
                SearchResult._keyword_fields(max_limit if clamped else limit, notices, clamped)
                if plain
                else None
            ),
        )

    def search_one(self, parsed: ParsedQuery, request: _Request) -> SearchResult:
        """:meth:`search` for one parsed query: what :meth:`search_parsed` does for a batch of
        one, without the batch bookkeeping (a few microseconds a call)."""
        notices = request.notices
        if parsed.truncated:
            notices = (*notices, cut_notice(parsed, request.max_query_length))
        if parsed.kind == "select":
            return self._lookups.select(
                parsed, request.limit, request.max_limit, request.allowed, list(notices),
                request.clamped,
            )  # fmt: skip
        if request.ranker == "keyword":
            return self.finish(parsed, self.keyword_matches(parsed, request), notices, request)
        matches, room, (exclude, required, floor) = self._lookups.tier(parsed, request)
        if room > 0:
            prefix = request.prefix
            # By position: keyword arguments cost the Rust binding ~0.1 µs each to match. The
            # engine builds the Match objects in the same call.
            matches += self._index.search_matches(
                self._tools,
                "bm25",
                scored_text(parsed.text, self.field_weights),
                room,
                exclude,
                request.include,
                required or None,
                prefix["prefix_fraction"],
                prefix["prefix_min_len"],
                prefix["max_expansions"],
                request.threshold,
                floor,
                request.coverage,
            )
        return self.finish(parsed, matches, notices, request)

    def _plain_call_keys(self, request: _Request) -> Any:
        """The name keys the Rust engine's one-call search (``search_plain``,
        ``search_plain_many``) needs, when ``request`` lets a plain query take it: no filter,
        gate, threshold or coverage rule, the exact-name tier on, no word pairs; else ``None``."""
        keys = self._lookups.names.keys if self.engine == "rust" else None
        if (
            keys is None
            or self.field_weights.word_pairs  # the engine's call searches the text as written
            or request.plain_fields is None  # a gate acts on the whole result
            or not request.exact_names
            or request.allowed is not None
            or request.excluded
            or request.threshold
            or request.coverage
        ):
            return None
        return keys

    def search_text(self, query: str, request: _Request) -> SearchResult:
        """:meth:`search_one` of ``query`` unparsed: on the Rust engine, a plain query (see
        :meth:`search_plain_many`) under a request without filter or gate takes the engine's
        one call, parse to result, as ``ToolIndex.search`` does with its default options but
        for any limit; any other query or request the parsed path, which gives the same
        result."""
        keys = self._plain_call_keys(request)
        if keys is not None and type(query) is str:
            prefix = request.prefix
            # (Only the Rust engine's index has search_plain: not in EngineIndex.)
            result: SearchResult | None = self._index.search_plain(  # type: ignore[attr-defined]
                self._tools, keys, request.plain_fields, query,
                min(request.limit, MAX_COUNT_OPTION), min(request.max_query_length,
                MAX_COUNT_OPTION), prefix["prefix_fraction"], prefix["prefix_min_len"],
                prefix["max_expansions"],
            )  # fmt: skip
            if result is not None:
                return result
        return self.search_one(
            parse_query(query, max_length=max(1, request.max_query_length)), request
        )

    def keyword_matches(self, parsed: ParsedQuery, request: _Request) -> list[Match]:
        """``ranker="keyword"``'s list before the gates: the exact-name tier (as for BM25+,
        scored in keyword points), then the keyword matches without the named tools, cut to the
        limit."""
        matches, tier = self._lookups.keyword_tier(parsed, request)
        room = request.limit - len(matches)
        if room <= 0:
            return matches
        excluded = request.excluded.union(tier) if tier else request.excluded
        hits = self._lookups.keyword_index().search(
            parsed.text,
            room,
            sorted(excluded),
            include=request.include,
            required=parsed.required,
        )
        return matches + _NEW_MATCHES[self.engine](self._tools, hits, "keyword")

    def search_plain_many(
        self, queries: list[str], request: _Request, max_length: int
    ) -> list[SearchResult] | None:
        """:meth:`search_many`'s common call on the Rust engine (no filter, gate or threshold
        beyond the prefix options): one engine call parses, proves and searches every plain
        query in parallel (see :meth:`search`); the queries it declines take
        :meth:`search_parsed`. ``None`` when the options need the general path."""
        keys = self._plain_call_keys(request)
        if keys is None:
            return None
        prefix = request.prefix
        # (Only the Rust engine's index has search_plain_many: not in EngineIndex.)
        # The engine takes sizes as usize: a larger limit or length means the same as the cap.
        cap = MAX_COUNT_OPTION
        results: list[SearchResult | None] = self._index.search_plain_many(  # type: ignore[attr-defined]
            self._tools, keys, request.plain_fields, queries, min(request.limit, cap),
            min(max_length, cap),
            prefix["prefix_fraction"], prefix["prefix_min_len"], prefix["max_expansions"],
        )  # fmt: skip
        declined = [i for i, result in enumerate(results) if result is None]
        if declined:
            parsed = [parse_query(queries[i], max_length=max_length) for i in declined]
            for i, result in zip(declined, self.search_parsed(parsed, request)):
                results[i] = result
        return results  # type: ignore[return-value]  # every None was replaced

    def search_parsed(self, queries: list[ParsedQuery], request: _Request) -> list[SearchResult]:
        """One :class:`SearchResult` per parsed query, in order.

        The BM25+ searches that need the same engine call but for the query text (same room,
        exclusions and required terms: all queries without an exact-name tier or ``+term``, in
        the common case) go to the engine as one ``search_many`` batch, which the Rust engine
        runs in parallel with the GIL released. Each result equals the single search's.
        """
        results: list[SearchResult | None] = [None] * len(queries)
        ranked: dict[int, tuple[list[str], list[Match]]] = {}
        batches: dict[tuple[Any, ...], list[int]] = {}
        for i, parsed in enumerate(queries):
            notices = list(request.notices)
            if parsed.truncated:
                notices.append(cut_notice(parsed, request.max_query_length))
            if parsed.kind == "select":
                results[i] = self._lookups.select(
                    parsed, request.limit, request.max_limit, request.allowed, notices,
                    request.clamped,
                )  # fmt: skip
                continue
            if request.ranker == "keyword":
                ranked[i] = (notices, self.keyword_matches(parsed, request))
                continue
            matches, room, rest = self._lookups.tier(parsed, request)
            ranked[i] = (notices, matches)
            if room > 0:
                batches.setdefault((room, *rest), []).append(i)
        for (room, exclude, required, floor), members in batches.items():
            kwargs: dict[str, Any] = {
                "include": request.include,
                "required": list(required),
                **request.prefix,
                "threshold": request.threshold,
                "coverage": request.coverage,
                "relative_floor": floor,
            }
            texts = [scored_text(queries[i].text, self.field_weights) for i in members]
            if len(texts) == 1:
                lists = [self._index.search(texts[0], room, exclude, **kwargs)]
            else:
                lists = self._index.search_many(texts, room, exclude, **kwargs)
            for i, hits in zip(members, lists):
                ranked[i][1].extend(_NEW_MATCHES[self.engine](self._tools, hits, "bm25"))
        for i, (notices, matches) in ranked.items():
            results[i] = self.finish(queries[i], matches, notices, request)
        return [r for r in results if r is not None]

    def finish(
        self,
        parsed: ParsedQuery,
        matches: list[Match],
        notices: Sequence[str],
        request: _Request,
    ) -> SearchResult:
        """The gates that act on the whole result, normalized scores, and the result itself."""
        fields = request.plain_fields
        if fields is not None and not parsed.truncated:  # no gate, no notice to add
            return SearchResult._from_fields(fields, parsed.query, tuple(matches), len(self._tools))
        if request.ranker != "bm25" and request.threshold:
            # Named (exact_name) tools stay, as the BM25+ engine keeps them.
            matches = [
                m for m in matches if m.reason == "exact_name" or m.score >= request.threshold
            ]
        if request.relative_floor and matches:
            # Relative to the best score of the whole result; named (exact_name) tools stay.
            best = max(m.score for m in matches)
            floor = request.relative_floor * best
            matches = [m for m in matches if m.reason == "exact_name" or m.score >= floor]
        if request.normalize and matches:
            best = max(m.score for m in matches)
            matches = [
                dataclasses.replace(m, normalized_score=m.score / best if best > 0 else 0.0)
                for m in matches
            ]
        return SearchResult._keyword(
            parsed.query,
            request.limit,
            tuple(matches),
            tuple(notices),
            request.clamped,
            parsed.truncated,
            len(self._tools),
        )

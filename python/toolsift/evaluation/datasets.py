"""The labelled sets of ``toolsift eval``: ``mcp_mixed``, ``metatool`` and ``gorilla_hf`` (read
from the shared data folder; not shipped), each a catalogue and its queries with their relevant
tools.

Example:
    >>> q = Query("read a file", frozenset({3}))
    >>> q.relevant
    frozenset({3})
"""

from __future__ import annotations

import json
import math
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from .._loaders.files import utf8_text
from ..errors import CatalogError
from ..loaders import load_catalog
from ..tools import Tool, _kind

#: The labeled sets, in table order.
DATASETS = ("mcp_mixed", "metatool", "gorilla_hf")
#: How deep each ranker's list goes (MRR and fusion look this far).
DEPTH = 100


@dataclass(frozen=True)
class Query:
    """One labeled query: its text and the positions of its relevant tools."""

    text: str
    relevant: frozenset[int]


@dataclass(frozen=True)
class Dataset:
    """Tools and labeled queries of one set.

    Attributes:
        name: the set's file stem, e.g. ``"metatool"``.
        tools: the catalogue, in file order.
        queries: the labeled queries (those with at least one relevant tool in ``tools``).
        note: how it was labeled or sampled.
    """

    name: str
    tools: tuple[Tool, ...]
    queries: tuple[Query, ...]
    note: str = ""


def find_data_dir(explicit: str | os.PathLike[str] | None = None) -> Path | None:
    """``explicit``, else ``$TOOLSIFT_SHARED_DIR/data``, else ``../shared/data`` from the cwd.

    Returns ``None`` when no candidate holds a labeled set. A folder given explicitly is the only
    candidate: a wrong ``--data`` is reported, never silently replaced by another folder.
    """
    candidates: list[Path] = []
    if explicit:
        path = Path(explicit)
        has_set = any((path / f"{name}.queries.jsonl").is_file() for name in DATASETS)
        return path if has_set else None
    env = os.environ.get("TOOLSIFT_SHARED_DIR")
    if env:
        candidates += [Path(env) / "data", Path(env)]
    here = Path.cwd()
    candidates += [here / "shared" / "data", here.parent / "shared" / "data"]
    for path in candidates:
        if any((path / f"{name}.queries.jsonl").is_file() for name in DATASETS):
            return path
    return None


def _query_error(file: str, line: int, message: str, field: str | None = None) -> CatalogError:
    return CatalogError(f"{file}:{line}: {message}", path=file, line=line, field=field)


def _check_query_row(file: str, line: int, row: Any, strict: bool) -> None:
    """A labeled query is ``{"query": str, "relevant": [str, ...]}``; with ``strict``, a row with
    ``"relevant_tools": [{"server", "name"}, ...]`` is scored by those instead of ``relevant``."""
    if not isinstance(row, dict):
        raise _query_error(file, line, f"a labeled query must be a JSON object, got {_kind(row)}.")
    if "query" not in row:
        raise _query_error(file, line, "field 'query' (the query text) is missing.", "query")
    if not isinstance(row["query"], str):
        got = _kind(row["query"])
        raise _query_error(file, line, f"field 'query' must be a string, got {got}.", "query")
    if strict and "relevant_tools" in row:
        pairs = row["relevant_tools"]
        if not isinstance(pairs, list) or not all(
            isinstance(p, dict)
            and isinstance(p.get("name"), str)
            and (p.get("server") is None or isinstance(p["server"], str))
            for p in pairs
        ):
            raise _query_error(
                file,
                line,
                'field \'relevant_tools\' must be a list of {"server": ..., "name": ...} '
                "objects with string names.",
                "relevant_tools",
            )
        return
    if "relevant" not in row:
        raise _query_error(
            file,
            line,
            "field 'relevant' (the names of the relevant tools) is missing.",
            "relevant",
        )
    relevant = row["relevant"]
    if not isinstance(relevant, list) or not all(isinstance(name, str) for name in relevant):
        raise _query_error(
            file,
            line,
            f"field 'relevant' must be a list of tool names (strings), got {_kind(relevant)}.",
            "relevant",
        )


def _read_queries(path: Path, strict: bool) -> list[tuple[int, dict[str, Any]]]:
    """The labeled queries of a ``<name>.queries.jsonl`` file with their line numbers; a row that
    is not JSON or not a labeled query is a :class:`~toolsift.CatalogError` naming ``file:line``."""
    file = os.fspath(path)
    text = utf8_text(path.read_bytes(), file)
    rows: list[tuple[int, dict[str, Any]]] = []
    for number, line in enumerate(text.removeprefix("\ufeff").split("\n"), 1):
        if not line or line.isspace():
            continue
        try:
            row = json.loads(line)
        except json.JSONDecodeError as error:
            raise _query_error(
                file, number, f"invalid JSON: {error.msg} (column {error.colno})."
            ) from None
        except RecursionError:
            raise _query_error(
                file, number, "invalid JSON: the nesting of arrays and objects is too deep to read."
            ) from None
        _check_query_row(file, number, row, strict)
        rows.append((number, row))
    return rows


def _check_limit(limit: int | None) -> int | None:
    if limit is None:
        return None
    if isinstance(limit, bool) or not isinstance(limit, int):
        raise TypeError(f"limit must be an int or None, got {type(limit).__name__}")
    if limit < 1:
        raise ValueError(f"limit must be a positive number of queries, got {limit}")
    return limit


def load_dataset(
    name: str, data_dir: str | os.PathLike[str], *, strict: bool = True, limit: int | None = None
) -> Dataset:
    """Load one labeled set.

    Arguments:
        name: ``"mcp_mixed"``, ``"metatool"`` or ``"gorilla_hf"`` (any ``<name>.tools.jsonl``
            with ``<name>.queries.jsonl`` works).
        data_dir: the folder holding the files.
        strict: for sets with ``relevant_tools`` (mcp_mixed), a hit must match server and name;
            when ``False`` any tool with a relevant raw name counts.
        limit: keep a deterministic sample of at most this many queries: every ``n``-th query of
            the file, ``n = ceil(total / limit)``.

    Raises:
        ValueError: ``limit`` is below 1 (``TypeError`` when it is not an int).
        CatalogError: a file is malformed: the message names the file, the line and, for a
            labeled query, the missing or wrong field (``query``, ``relevant``).
        OSError: a file cannot be read.
    """
    _check_limit(limit)
    data = Path(data_dir)
    tools = tuple(load_catalog(data / f"{name}.tools.jsonl"))
    by_pair = {(t.server, t.mcp_tool_name or t.name): i for i, t in enumerate(tools)}
    by_raw: dict[str, list[int]] = {}
    for i, t in enumerate(tools):
        by_raw.setdefault(t.mcp_tool_name or t.name, []).append(i)
    rows = _read_queries(data / f"{name}.queries.jsonl", strict)
    note = f"all {len(rows)} queries"
    if limit is not None and len(rows) > limit:
        step = math.ceil(len(rows) / limit)
        note = f"every {step}th of {len(rows)} queries"
        rows = rows[::step]
    queries = []
    pairs = False
    for _, row in rows:
        if strict and "relevant_tools" in row:
            pairs = True
            rel = {by_pair.get((p["server"], p["name"])) for p in row["relevant_tools"]}
        else:
            rel = {i for raw in row["relevant"] for i in by_raw.get(raw, ())}
        rel.discard(None)
        if rel:
            queries.append(Query(row["query"], frozenset(rel)))  # type: ignore[arg-type]
    strictness = "strict (server + name)" if pairs else "by name"
    return Dataset(name, tools, tuple(queries), f"{note}; {strictness}")


# --- metrics --------------------------------------------------------------------------------

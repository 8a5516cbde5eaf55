"""The sets toolsift's authors wrote for the semantic ranking, shipped in ``evaluation/data/``:

* ``notool.jsonl``: requests that no tool of a catalogue can serve, over three catalogues
  (:data:`CATALOGUES`): the model should answer from its own knowledge and skills, or the request
  needs something outside every tool (a physical chore, a service the catalogue lacks). Each was
  checked against the lexical and dense top matches of its catalogue. Set name
  ``notool-<catalogue>``.
* ``inscope.jsonl``: requests that one tool serves, with that tool (``server`` + ``name``), for
  ``popular_mcp_servers`` and ``default_tools`` (mcp_mixed's in-scope set is its own labelled
  queries). Set name ``inscope-<catalogue>``. Measures what abstention costs.
* ``tasks-mcp_mixed.jsonl``: whole tasks over mcp_mixed, each labelled with every tool it needs
  (2 to 5). A need is met by the labelled tool or by an exact clone of it (the same name and
  the same description on another server). Set name ``tasks-mcp_mixed``.

Every set is split with :func:`~toolsift.evaluation.splits.split_of` under its set name.
``default_tools`` is :func:`toolsift.default_tools`; the other catalogues are read from the
shared data folder (``$TOOLSIFT_SHARED_DIR/data``).

Example:
    >>> len(notool_requests("default_tools")) >= 50
    True
    >>> from toolsift import default_tools
    >>> ds = load_inscope("default_tools", default_tools())
    >>> ds.name, len(ds.queries) >= 50
    ('inscope-default_tools', True)
"""

from __future__ import annotations

import json
import os
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..errors import CatalogError
from ..loaders import load_catalog
from ..tools import Tool
from .datasets import Dataset, Query, load_dataset
from .splits import Split, select

#: The catalogues of the no-tool and in-scope sets.
CATALOGUES = ("popular_mcp_servers", "mcp_mixed", "default_tools")
#: The folder of the authored sets.
DATA_DIR = Path(__file__).resolve().parent / "data"


@dataclass(frozen=True)
class Task:
    """A whole-task request: its text and, per tool it needs, the positions that meet the need."""

    text: str
    needs: tuple[frozenset[int], ...]


def _rows(name: str) -> list[dict[str, Any]]:
    """The JSON objects of ``data/<name>``, one a line; a malformed line is a ``CatalogError``."""
    path = DATA_DIR / name
    rows = []
    for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        if not line.strip():
            continue
        try:
            row = json.loads(line)
        except json.JSONDecodeError as error:
            raise CatalogError(f"{path}:{number}: invalid JSON: {error.msg}.") from None
        if not isinstance(row, dict) or not isinstance(row.get("query"), str):
            raise CatalogError(f"{path}:{number}: a row must be an object with a 'query' string.")
        rows.append(row)
    return rows


def _check_catalogue(catalogue: str) -> None:
    if catalogue not in CATALOGUES:
        raise ValueError(f"catalogue must be one of {', '.join(CATALOGUES)}, got {catalogue!r}")


def load_catalogue(catalogue: str, data_dir: str | os.PathLike[str] | None) -> tuple[Tool, ...]:
    """The tools of ``catalogue``: :func:`toolsift.default_tools`, or ``<catalogue>.tools.jsonl``
    of ``data_dir`` (``FileNotFoundError`` when it is absent)."""
    _check_catalogue(catalogue)
    if catalogue == "default_tools":
        from .. import default_tools

        return tuple(default_tools())
    if data_dir is None:
        raise FileNotFoundError(f"{catalogue} needs the shared data folder (--data)")
    return tuple(load_catalog(Path(data_dir) / f"{catalogue}.tools.jsonl"))


def notool_requests(catalogue: str, split: Split | None = None) -> list[str]:
    """The no-tool requests of ``catalogue`` (all, or those of ``split``), in file order."""
    _check_catalogue(catalogue)
    texts = [row["query"] for row in _rows("notool.jsonl") if row.get("catalogue") == catalogue]
    if split is None:
        return texts
    return select(f"notool-{catalogue}", texts, split, lambda text: text)


def pair_positions(tools: Sequence[Tool]) -> dict[tuple[str | None, str], int]:
    """``(server, raw name) -> position`` of the tools (the first one of a repeated pair)."""
    out: dict[tuple[str | None, str], int] = {}
    for i, tool in enumerate(tools):
        out.setdefault((tool.server, tool.mcp_tool_name or tool.name), i)
    return out


def _resolve(pairs: dict[tuple[str | None, str], int], labels: Any, where: str) -> list[int]:
    if not isinstance(labels, list) or not labels:
        raise CatalogError(f"{where}: 'relevant_tools' must be a non-empty list.")
    out = []
    for label in labels:
        key = (label.get("server"), label.get("name")) if isinstance(label, dict) else None
        if key is None or key not in pairs:
            raise CatalogError(f"{where}: the labelled tool {label!r} is not in the catalogue.")
        out.append(pairs[key])
    return out


def load_inscope(
    catalogue: str,
    tools: Sequence[Tool],
    data_dir: str | os.PathLike[str] | None = None,
) -> Dataset:
    """The in-scope requests of ``catalogue`` over ``tools``: the authored ones for
    ``popular_mcp_servers`` and ``default_tools``; mcp_mixed's own labelled queries (strict,
    read from ``data_dir``) for ``mcp_mixed``. A label missing from ``tools`` is a
    ``CatalogError``."""
    _check_catalogue(catalogue)
    if catalogue == "mcp_mixed":
        if data_dir is None:
            raise FileNotFoundError("mcp_mixed needs the shared data folder (--data)")
        return load_dataset("mcp_mixed", data_dir)
    pairs = pair_positions(tools)
    queries = []
    for row in _rows("inscope.jsonl"):
        if row.get("catalogue") == catalogue:
            where = f"inscope.jsonl ({row['query']!r})"
            relevant = _resolve(pairs, row.get("relevant_tools"), where)
            queries.append(Query(row["query"], frozenset(relevant)))
    return Dataset(f"inscope-{catalogue}", tuple(tools), tuple(queries), "authored")


def _clones(tools: Sequence[Tool]) -> dict[int, frozenset[int]]:
    """Each position's exact clones: the tools with its raw name and its description."""
    groups: dict[tuple[str, str], list[int]] = {}
    for i, tool in enumerate(tools):
        groups.setdefault((tool.mcp_tool_name or tool.name, tool.description), []).append(i)
    return {i: frozenset(group) for group in groups.values() for i in group}


def load_tasks(tools: Sequence[Tool], split: Split | None = None) -> list[Task]:
    """The whole-task requests over mcp_mixed's ``tools`` (all, or those of ``split``). A label
    missing from ``tools`` is a ``CatalogError``."""
    pairs = pair_positions(tools)
    clones = _clones(tools)
    tasks = []
    rows = _rows("tasks-mcp_mixed.jsonl")
    if split is not None:
        rows = select("tasks-mcp_mixed", rows, split, lambda row: row["query"])
    for row in rows:
        where = f"tasks-mcp_mixed.jsonl ({row['query']!r})"
        needs = tuple(clones[i] for i in _resolve(pairs, row.get("relevant_tools"), where))
        tasks.append(Task(row["query"], needs))
    return tasks

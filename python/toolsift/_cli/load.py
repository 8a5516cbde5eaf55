"""The catalogue a ``toolsift`` command works on: the ``--catalog`` files (or the built-in
catalogue) loaded into a discovery session that hides every tool, as ``--config``, ``--engine``,
``--profile`` and ``--word-pairs`` set it up.

Example:
    >>> import argparse
    >>> _field_weights(argparse.Namespace(word_pairs=None, profile="english")) is None
    True
"""

from __future__ import annotations

import argparse
import dataclasses
import math
from typing import Any

from .._text.documents import FieldWeights
from ..catalog import default_server_summaries, default_tools
from ..config import load_config
from ..errors import DuplicateToolError, ToolsiftError
from ..loaders import load_catalog
from ..session import DiscoverySession
from ..tools import Tool
from .failure import _Failure
from .progress import _progress_paths

__all__ = ["_field_weights", "_load", "_session"]


def _load(args: argparse.Namespace) -> list[Tool]:
    """The tools of the ``--catalog`` files (``--server`` names the server of raw ``tools/list``
    files); a file without tools (empty, or ``[]``) is an error naming it."""
    tools: list[Tool] = []
    seen: dict[str, str] = {}
    for path in _progress_paths(args.catalog):
        loaded = load_catalog(path, server=args.server)
        if not loaded:
            raise _Failure(f"{path}: the catalogue holds no tools (an empty file or list)")
        for tool in loaded:
            if tool.name in seen:
                raise DuplicateToolError(
                    f"Duplicate tool name {tool.name!r} in {seen[tool.name]} and {path}.",
                    tool=tool.name,
                    field="name",
                )
            seen[tool.name] = path
        tools += loaded
    return tools


def _session(args: argparse.Namespace) -> tuple[DiscoverySession, str]:
    """Every tool of the catalogues hidden, nothing always available: a fresh search session
    (or as ``--config`` sets it up)."""
    if args.server is not None and not args.catalog:
        raise _Failure("--server names the server of a --catalog file; give one")
    if args.catalog:
        try:
            tools = _load(args)
        except OSError as exc:
            where = exc.filename if exc.filename is not None else "catalogue"
            raise _Failure(f"cannot read {where}: {exc.strerror or exc}") from None
        except ToolsiftError as exc:
            if getattr(exc, "field", None) == "server" and args.server is None:
                raise _Failure(f"{exc} (a raw tools/list file needs --server NAME)") from None
            raise
        summaries: dict[str, str] = {}
        source = ", ".join(args.catalog)
    else:
        tools = default_tools()
        summaries = default_server_summaries()
        source = "built-in catalogue"
    options: dict[str, Any] = {"mode": "all", "always_available": ()}
    if args.config is not None:
        options = {"config": load_config(args.config)}
    if getattr(args, "semantic", None) is not None:  # search's --semantic/--no-semantic
        options["semantic"] = args.semantic
    if getattr(args, "min_confidence", None) is not None:
        options["min_confidence"] = args.min_confidence
    session = DiscoverySession(
        tools,
        summaries=summaries,
        engine=args.engine,
        profile=args.profile,
        field_weights=_field_weights(args),
        **options,
    )
    if args.limit is None:
        args.limit = session.default_limit
    return session, source


def _field_weights(args: argparse.Namespace) -> FieldWeights | None:
    """The profile's field weights with ``--word-pairs`` on, or ``None`` (the profile's own)."""
    if not args.word_pairs:
        return None
    if not (0 < args.word_pairs <= 1e30 and math.isfinite(args.word_pairs)):
        raise _Failure(f"--word-pairs must be a positive number up to 1e30, got {args.word_pairs}")
    weights = FieldWeights.for_profile(args.profile)
    return dataclasses.replace(weights, word_pairs=args.word_pairs)

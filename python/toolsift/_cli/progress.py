"""What the ``toolsift`` command draws on a terminal while it works: a bar while large
catalogues load and while tools are embedded, an "indexing N tools" spinner while a large
index builds (nothing off a terminal or for small inputs).

Example:
    >>> list(_progress_paths(["tools.jsonl"]))  # small (here: absent), so no bar
    ['tools.jsonl']
"""

from __future__ import annotations

import os
import sys
from collections.abc import Iterator
from typing import Any, Callable, TypeVar

from ..session import DiscoverySession

__all__ = ["PROGRESS_BYTES", "PROGRESS_TOOLS", "_ProgressEmbedder", "_build_index", "_indexing"]

#: Show a progress bar (on a terminal) when the catalogues add up to this many bytes.
PROGRESS_BYTES = 4 * 1024 * 1024
#: Show a spinner (on a terminal) while the index of this many tools or more is built.
PROGRESS_TOOLS = 50_000

_T = TypeVar("_T")


def _progress_paths(paths: list[str]) -> Iterator[str]:
    """Yield ``paths``, drawing a progress bar on a terminal when they are large.

    :func:`toolsift.loaders.load_catalogs` takes each path when it starts that file, so the
    bar advances by a file's size as the next one is asked for.
    """
    sizes = []
    for path in paths:
        try:
            sizes.append(os.path.getsize(path))
        except OSError:
            sizes.append(0)  # load_catalogs reports the missing file itself
    stream = sys.stderr
    if sum(sizes) < PROGRESS_BYTES or not (hasattr(stream, "isatty") and stream.isatty()):
        yield from paths
        return
    from rich.console import Console
    from rich.progress import BarColumn, DownloadColumn, Progress, TextColumn

    with Progress(
        TextColumn("loading {task.fields[file]}"),
        BarColumn(),
        DownloadColumn(),
        console=Console(file=stream),
        transient=True,
    ) as progress:
        task = progress.add_task("load", total=sum(sizes), file="")
        for path, size in zip(paths, sizes):
            progress.update(task, file=os.path.basename(path))
            yield path
            progress.advance(task, size)


class _ProgressEmbedder:
    """``embed``, drawing a progress bar on a terminal while it embeds many texts at once.

    ``HybridIndex`` embeds the catalogue only when its vectors are not in the on-disk cache, and
    that can take minutes (11,578 tools: about 2 minutes with MiniLM on 2 cores): the bar says
    what is happening. The texts are then embedded :attr:`CHUNK` at a time; a query (one text),
    or any call off a terminal, goes straight to ``embed``.
    """

    CHUNK = 256

    def __init__(self, embed: Any, name: str, stream: Any = None) -> None:
        self._embed = embed
        self._name = name
        self._stream = stream
        self.model_id = getattr(embed, "model_id", None)  # the cache key's model

    def __call__(self, texts: list[str]) -> Any:
        stream = self._stream if self._stream is not None else sys.stderr
        if len(texts) <= self.CHUNK or not (hasattr(stream, "isatty") and stream.isatty()):
            return self._embed(texts)
        import numpy as np
        from rich.console import Console
        from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn

        parts = []
        label = f"embedding the tools with {self._name} (once: the vectors are cached)"
        with Progress(
            TextColumn(label),
            BarColumn(),
            MofNCompleteColumn(),
            console=Console(file=stream),
            transient=True,
        ) as progress:
            task = progress.add_task("embed", total=len(texts))
            for start in range(0, len(texts), self.CHUNK):
                chunk = texts[start : start + self.CHUNK]
                parts.append(np.asarray(self._embed(chunk), dtype=np.float32))
                progress.advance(task, len(chunk))
        return np.concatenate(parts)


def _build_index(session: DiscoverySession) -> None:
    """Build the session's index now, with a spinner on a terminal when it is large."""
    _indexing(len(session.hidden_tools), session.prepare)


def _indexing(count: int, build: Callable[[], _T]) -> _T:
    """``build()``, with an "indexing N tools" spinner on a terminal when ``count`` is large.

    A catalogue of 100,000 tools takes about half a second to index, a million several seconds:
    the spinner says what is happening between the loading bar and the result.
    """
    stream = sys.stderr
    if count < PROGRESS_TOOLS or not (hasattr(stream, "isatty") and stream.isatty()):
        return build()
    from rich.console import Console

    with Console(file=stream).status(f"indexing {count:,} tools"):
        return build()

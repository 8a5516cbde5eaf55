"""Choosing an engine: the compiled Rust index, or its pure-Python twin.

Example:
    >>> select_engine("python")[1].__module__
    'toolsift._pyengine.index'
"""

from __future__ import annotations

import threading
import warnings
from typing import TYPE_CHECKING, Literal

from .._pyengine.index import Index as PythonIndex
from .._pyengine.keyword import KeywordIndex as PythonKeywordIndex
from .._pyengine.regex import RegexIndex as PythonRegexIndex
from .._text.documents import document
from ..errors import EngineUnavailableError

if TYPE_CHECKING:
    from collections.abc import Callable

    from ..tools import Tool
    from .protocol import EngineIndexClass, EngineKeywordIndexClass, EngineRegexIndexClass

__all__ = [
    "EngineName",
    "available_engines",
    "document_function",
    "keyword_index_class",
    "regex_index_class",
    "select_engine",
]

EngineName = Literal["auto", "rust", "python"]

_warned_fallback = False
_warn_lock = threading.Lock()


def rust_index_class() -> EngineIndexClass | None:
    """The compiled engine's index class, or ``None`` when the extension cannot be imported."""
    try:
        from .._core import Index
    except ImportError:
        return None
    return Index


def document_function(index: object) -> Callable[[Tool, list[float]], list[tuple[int, str]]]:
    """How ``index``'s engine makes a tool's document, ``(field id, text)`` pairs: the compiled
    engine's own extraction for a Rust index, the twin's (``_text.documents.document``, proven
    equal by ``tests/test_tool_documents.py``) for a pure-Python one.

    Example:
        >>> from toolsift._pyengine.index import Index
        >>> document_function(Index([], [], [1.0])).__name__
        'document'
    """
    if isinstance(index, PythonIndex):
        return document
    from .._core import _tool_document

    return _tool_document


def available_engines() -> list[str]:
    """The engines that can run here: ``["rust", "python"]``, or ``["python"]`` without Rust.

    Example:
        >>> "python" in available_engines()
        True
    """
    return ["rust", "python"] if rust_index_class() is not None else ["python"]


def select_engine(engine: str) -> tuple[str, EngineIndexClass]:
    """``(engine name, engine index class)`` for ``engine``; ``"auto"`` warns once on fallback.

    Example:
        >>> select_engine("python")[0]
        'python'
    """
    global _warned_fallback
    if engine == "python":
        return "python", PythonIndex
    if engine not in ("auto", "rust"):
        raise ValueError(f"engine must be 'auto', 'rust' or 'python', got {engine!r}")
    cls = rust_index_class()
    if cls is not None:
        return "rust", cls
    if engine == "rust":
        raise EngineUnavailableError(
            "The Rust engine (toolsift._core) cannot be loaded. Reinstall toolsift from a wheel, "
            "or build it with a Rust toolchain (`pip install .`), or pass engine='python'."
        )
    with _warn_lock:
        if not _warned_fallback:
            _warned_fallback = True
            warnings.warn(
                "toolsift: the Rust extension (toolsift._core) could not be loaded; using the "
                "pure-Python engine, which ranks identically but is about 100x slower.",
                RuntimeWarning,
                stacklevel=3,
            )
    return "python", PythonIndex


def keyword_index_class(engine: str) -> EngineKeywordIndexClass:
    """``ToolSearch``'s keyword scorer class of ``engine`` (a name :func:`select_engine` returned).

    Example:
        >>> keyword_index_class("python").__module__
        'toolsift._pyengine.keyword'
    """
    if engine == "rust":
        from .._core import KeywordIndex

        return KeywordIndex
    return PythonKeywordIndex


def regex_index_class(engine: str) -> EngineRegexIndexClass:
    """The regex ranker's index class of ``engine`` (a name :func:`select_engine` returned).

    Example:
        >>> regex_index_class("python").__module__
        'toolsift._pyengine.regex'
    """
    if engine == "rust":
        from .._core import RegexIndex

        return RegexIndex
    return PythonRegexIndex

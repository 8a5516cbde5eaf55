r"""Reading a catalogue file: UTF-8 bytes to a JSON document or JSON Lines rows, and its tool items.

The extension only decides which parse is tried first (see
:func:`toolsift.loaders.load_catalog`); errors name ``file:line``.

Example:
    >>> _parse("tools.json", '{"name": "a"}\n{"name": "b"}\n')
    (True, [(1, {'name': 'a'}), (2, {'name': 'b'})])
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Iterable
from typing import Any, Union

from ..errors import CatalogError
from ..limits import MAX_CATALOG_BYTES, read_regular_file
from .walk import _jsonl_entries, _jsonpath, _Line, _walk, _Where

# This alias is evaluated at run time, so it keeps typing's spelling for Python 3.9.
StrPath = Union[str, "os.PathLike[str]"]


def utf8_text(data: bytes, file: str) -> str:
    """``data`` decoded as UTF-8, or a :class:`CatalogError` naming ``file:line`` and the byte.

    Example:
        >>> utf8_text(b"ok", "tools.jsonl")
        'ok'
    """
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as error:
        line = data.count(b"\n", 0, error.start) + 1
        raise CatalogError(
            f"{file}:{line}: not valid UTF-8 ({error.reason} at byte {error.start}).",
            path=file,
            line=line,
        ) from None


def _parse_jsonl(file: str, text: str) -> list[tuple[int, Any]]:
    rows: list[tuple[int, Any]] = []
    loads = json.loads
    # Split on "\n" only: str.splitlines() would also split on U+2028 inside JSON strings.
    for number, line in enumerate(text.split("\n"), 1):
        if not line or line.isspace():
            continue
        try:
            rows.append((number, loads(line)))
        except json.JSONDecodeError as error:
            raise CatalogError(
                f"{file}:{number}: invalid JSON: {error.msg} (column {error.colno}).",
                path=file,
                line=number,
            ) from None
        except RecursionError:
            raise _too_deep(file, number) from None
        except ValueError as error:  # an integer past Python's digit limit
            raise _bad_number(file, line, error, number) from None
    return rows


# An integer literal longer than Python's int <-> str conversion limit (4,300 digits by default).
_LONG_DIGITS = re.compile(r"[0-9]{4300,}")


def _bad_number(file: str, text: str, error: ValueError, line: int = 1) -> CatalogError:
    """The error of a JSON number Python cannot read (an integer past its digit limit), at the
    line and column of the first such number in ``text`` (which starts at line ``line``)."""
    found = _LONG_DIGITS.search(text)
    if found is not None:
        line += text.count("\n", 0, found.start())
        column = found.start() - text.rfind("\n", 0, found.start())
        where = f" (column {column})"
    else:
        where = ""
    return CatalogError(
        f"{file}:{line}: invalid JSON: a number is too long to read{where}: {error}.",
        path=file,
        line=line,
    )


def _too_deep(file: str, line: int | None) -> CatalogError:
    """The error of a JSON value nested deeper than Python's parser can recurse."""
    where = file if line is None else f"{file}:{line}"
    return CatalogError(
        f"{where}: invalid JSON: the nesting of arrays and objects is too deep to read.",
        path=file,
        line=line,
    )


def _deep_line(text: str) -> int | None:
    """The first line that is too deeply nested to parse on its own, if any (the error path of a
    document that exceeded the recursion limit: it may be JSON Lines with one deep row)."""
    for number, line in enumerate(text.split("\n"), 1):
        if not line or line.isspace():
            continue
        try:
            json.loads(line)
        except ValueError:
            continue
        except RecursionError:
            return number
    return None


def _parse(file: str, text: str) -> tuple[bool, Any]:
    """``(is_jsonl, rows or document)``, by content; the extension decides what is tried first."""
    if file.lower().endswith((".jsonl", ".ndjson")):
        try:
            return True, _parse_jsonl(file, text)
        except CatalogError as jsonl_error:
            try:
                return False, json.loads(text)
            except (ValueError, RecursionError):
                raise jsonl_error from None
    try:
        return False, json.loads(text)
    except RecursionError:
        raise _too_deep(file, _deep_line(text)) from None
    except json.JSONDecodeError as error:
        if error.msg == "Extra data":  # several JSON values: JSON Lines
            return True, _parse_jsonl(file, text)
        raise CatalogError(
            f"{file}:{error.lineno}: invalid JSON: {error.msg} (column {error.colno}).",
            path=file,
            line=error.lineno,
        ) from None
    except ValueError as error:  # an integer past Python's digit limit
        raise _bad_number(file, text, error) from None


def check_path(path: object, caller: str) -> str:
    """``path`` as a str (a str, bytes or ``os.PathLike``), else a ``TypeError`` naming
    ``caller``.

    Example:
        >>> check_path(b"tools.json", "load_catalog")
        'tools.json'
    """
    if isinstance(path, (str, bytes)) or hasattr(type(path), "__fspath__"):
        return os.fsdecode(path)  # type: ignore[arg-type]
    raise TypeError(
        f"{caller}: path must be a str, bytes or os.PathLike, got {type(path).__name__}"
    )


def _file_entries(
    path: StrPath, server: str | None, max_bytes: int = MAX_CATALOG_BYTES
) -> tuple[str, Iterable[tuple[_Where, Any, str | None]]]:
    """The file's name and its tool items, with their places (lazily: walking a document raises
    its structure errors as :class:`~toolsift._loaders.walk._Located`). Only a regular file of
    at most ``max_bytes`` is read (:func:`toolsift.limits.read_regular_file`)."""
    file = os.fspath(path)
    data, problem = read_regular_file(file, max_bytes, "catalogue")
    if data is None:
        raise CatalogError(f"{file}: {problem}.", path=file)
    return file, bytes_entries(data, file, server)


def bytes_entries(
    data: bytes, file: str, server: str | None
) -> Iterable[tuple[_Where, Any, str | None]]:
    """The tool items of a catalogue file's bytes ``data`` (named ``file`` in errors).

    Example:
        >>> [item for _, item, _ in bytes_entries(b'[{"name": "a"}]', "tools.json", None)]
        [{'name': 'a'}]
    """
    text = utf8_text(data, file)
    if text.startswith("\ufeff"):
        text = text[1:]
    if not text or text.isspace():
        return ()
    is_jsonl, parsed = _parse(file, text)
    entries: Iterable[tuple[_Where, Any, str | None]]
    if is_jsonl:
        entries = _jsonl_entries(parsed, server)
    else:
        entries = _walk(parsed, server)
    return entries


def _line_number(where: _Where) -> int | None:
    if isinstance(where, _Line):
        return where.number
    return where if isinstance(where, int) else None


def _describe_place(place: tuple[str, _Where]) -> str:
    file, where = place
    if isinstance(where, _Line):
        return f"{file}:{where.number}:{_jsonpath(where.path)}"
    if isinstance(where, int):
        return f"{file}:{where}"
    return f"{file}:{_jsonpath(where)}"

"""Writing a config file back: only the changed keys of one block, then an atomic replace.

A TOML file is changed in place (:mod:`toolsift._config_toml`: comments and formatting kept).
A JSON file keeps its other keys, their order and its indentation (detected from the file);
only the block's changed keys are written, never every default. The new text is parsed back
and checked before it replaces the file; it goes to a temporary file next to the real file (the
target of a symbolic link, so the link is kept), gets the old file's permissions, is flushed to
disk and then replaces the file with ``os.replace``; the previous file is kept as ``FILE.bak``.

Example:
    >>> print(update_json('{\\n    "a": 1\\n}\\n', "tool_search", {"gate": False}), end="")
    {
        "a": 1,
        "tool_search": {
            "gate": false
        }
    }
"""

from __future__ import annotations

import json
import os
import re
import shutil
import stat
import tempfile
from collections.abc import Mapping
from typing import Any, Callable

from ._config_toml import DELETE, update_toml
from .errors import ConfigError

__all__ = ["DELETE", "update_json", "update_text", "write_atomic"]

_INDENT = re.compile(r"\n([ \t]+)\S")


def update_json(text: str, table: str, changes: Mapping[str, Any]) -> str:
    """``text`` (a JSON object) with the keys of ``changes`` set in its ``table`` object."""
    doc = json.loads(text) if text.strip() else {}
    block = doc.setdefault(table, {})
    for key, value in changes.items():
        if value is DELETE:
            block.pop(key, None)
        else:
            block[key] = value
    found = _INDENT.search(text)
    if found is not None:
        indent: str | int | None = found.group(1)
    else:  # a new file: two spaces; a one-line file stays on one line
        indent = 2 if not text.strip() else None
    out = json.dumps(doc, indent=indent, ensure_ascii=False)
    return out + "\n" if not text or text.endswith("\n") else out


def update_text(file: str, text: str, table: str, changes: Mapping[str, Any]) -> str:
    """The file's new text: TOML for a ``.toml`` name, JSON otherwise."""
    if file.endswith(".toml"):
        return update_toml(text, table, changes)
    return update_json(text, table, changes)


def _default_mode() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return 0o666 & ~mask


def write_atomic(file: str, text: str, check: Callable[[str], None]) -> None:
    """Replace ``file`` (through a symbolic link: its target) by ``text`` atomically.

    ``check(text)`` must accept the text first (it raises :class:`ConfigError` otherwise).
    """
    check(text)
    try:
        data = text.encode("utf-8")
    except UnicodeEncodeError as exc:  # a lone surrogate from a JSON body
        raise ConfigError(
            f"{file}: cannot write a value that is not valid Unicode: {exc}"
        ) from None
    target = os.path.realpath(file)
    try:
        mode = stat.S_IMODE(os.stat(target).st_mode)
        exists = True
    except FileNotFoundError:
        mode, exists = _default_mode(), False
    fd, tmp = tempfile.mkstemp(prefix=".toolsift-", suffix=".tmp", dir=os.path.dirname(target))
    try:
        with os.fdopen(fd, "wb") as out:
            out.write(data)
            out.flush()
            if hasattr(os, "fchmod"):
                os.fchmod(out.fileno(), mode)
            os.fsync(out.fileno())
        if exists:
            shutil.copy2(target, target + ".bak")
        os.replace(tmp, target)
    except BaseException:
        if os.path.exists(tmp):
            os.unlink(tmp)
        raise

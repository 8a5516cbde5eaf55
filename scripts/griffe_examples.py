"""A griffe extension for the API reference (``mkdocs.yml``): ``Example:`` is an examples section.

toolsift's docstrings head their doctests ``Example:`` (Google style allows it, and the doctests
run in ``tests/test_docstrings.py``); griffe only knows ``Examples:`` and would render an
``Example:`` block as Markdown prose, where ``['a'][0]`` reads as a link.
"""

from __future__ import annotations

import re
from typing import Any

import griffe

_EXAMPLE = re.compile(r"^(\s*)Example:\s*$", re.MULTILINE)


class ExampleSections(griffe.Extension):
    """Rename each ``Example:`` section heading to ``Examples:`` before the docstring is parsed."""

    def on_instance(self, *, obj: griffe.Object, **kwargs: Any) -> None:
        if obj.docstring is not None:
            obj.docstring.value = _EXAMPLE.sub(r"\1Examples:", obj.docstring.value)

"""The user errors of the ``toolsift`` command: reported as ``toolsift: error: <message>``
with exit code 2, like the toolsift errors.

Example:
    >>> str(_Failure("--server names the server of a --catalog file; give one"))
    '--server names the server of a --catalog file; give one'
"""

from __future__ import annotations

__all__ = ["_Failure"]


class _Failure(Exception):
    """A user error the CLI reports as ``toolsift: error: <message>``."""

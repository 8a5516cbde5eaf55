"""The gateway's per-client guards: the execution gate and the search rate limit.

Both are plain, synchronous objects with no MCP import, so they are tested on their own.

Example:
    >>> from toolsift.config import RateLimit
    >>> bucket = TokenBucket(RateLimit(2, 60.0), clock=lambda: 0.0)
    >>> bucket.take(), bucket.take(), bucket.take()
    (True, True, False)
"""

from __future__ import annotations

import threading
import time
from typing import Callable

from ..config import RateLimit

__all__ = ["TokenBucket", "gate_message", "rate_limit_message"]


class TokenBucket:
    """A token bucket of ``limit.count`` tokens, refilled evenly over ``limit.per_seconds``.

    Arguments:
        limit: the bucket's size and refill period.
        clock: the time source in seconds (``time.monotonic``; tests pass their own).
    """

    def __init__(self, limit: RateLimit, clock: Callable[[], float] = time.monotonic) -> None:
        self.limit = limit
        self._clock = clock
        self._tokens = float(limit.count)
        self._at = clock()
        self._lock = threading.Lock()

    def _refill(self) -> None:
        now = self._clock()
        rate = self.limit.count / self.limit.per_seconds
        self._tokens = min(float(self.limit.count), self._tokens + (now - self._at) * rate)
        self._at = now

    def take(self) -> bool:
        """Take one token: ``True`` if there was one, ``False`` when the bucket is empty."""
        with self._lock:
            self._refill()
            if self._tokens >= 1.0:
                self._tokens -= 1.0
                return True
            return False

    def full(self) -> bool:
        """Whether the bucket is full again (then it is the same as a new one)."""
        with self._lock:
            self._refill()
            return self._tokens >= float(self.limit.count)

    def retry_after(self) -> float:
        """Seconds until the next token."""
        with self._lock:
            self._refill()
            missing = max(0.0, 1.0 - self._tokens)
            return missing * self.limit.per_seconds / self.limit.count


def gate_message(name: str, search_tool: str) -> str:
    """The tool error of a call refused by the execution gate.

    Example:
        >>> gate_message("mcp__git__git_status", "search_tool_bm25")[:58]
        "Tool 'mcp__git__git_status' is not active in this session."
    """
    return (
        f"Tool {name!r} is not active in this session. Activate it first: call {search_tool} "
        f'with {{"query": "select:{name}"}} (or a search that finds it), then call it again.'
    )


def rate_limit_message(limit: RateLimit, retry_after: float) -> str:
    """The tool error of a search over the client's rate limit.

    Example:
        >>> rate_limit_message(RateLimit(5, 60.0), 12.0)
        'Search rate limit exceeded (5/min for this client): try again in 12 s.'
    """
    return (
        f"Search rate limit exceeded ({limit} for this client): try again in "
        f"{max(1, round(retry_after))} s."
    )

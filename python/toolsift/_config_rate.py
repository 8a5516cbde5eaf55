"""A ``rate_limit`` setting: ``count`` searches per ``per_seconds`` seconds (a token bucket).

Written as ``"5/min"``, ``"100/hour"``, ``"3/10s"``; a period that is not a whole unit is
written back as a whole number of seconds (``"3/1234567s"``), which reads back the same. The
period is at most a year (:data:`MAX_RATE_PERIOD`) and the count at most
:data:`MAX_RATE_COUNT`: a larger or non-finite value is refused, never rounded.

Example:
    >>> str(RateLimit.parse("5/1000h"))
    '5/3600000s'
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass

__all__ = ["MAX_RATE_COUNT", "MAX_RATE_PERIOD", "RateLimit"]

_RATE = re.compile(r"^\s*(\d+)\s*/\s*(\d*)\s*(s|sec|second|m|min|minute|h|hour)s?\s*$")
_UNITS = {"s": 1.0, "sec": 1.0, "second": 1.0, "m": 60.0, "min": 60.0, "minute": 60.0}
_UNITS.update({"h": 3600.0, "hour": 3600.0})
#: The longest ``rate_limit`` period (a year, in seconds) and its largest count.
MAX_RATE_PERIOD = 366 * 86_400
MAX_RATE_COUNT = 1_000_000_000


@dataclass(frozen=True)
class RateLimit:
    """A token bucket's size and refill: ``count`` searches per ``per_seconds`` seconds.

    Example:
        >>> RateLimit.parse("5/min")
        RateLimit(count=5, per_seconds=60.0)
    """

    count: int
    per_seconds: float

    def __post_init__(self) -> None:
        count, every = self.count, self.per_seconds
        if (
            isinstance(count, bool)
            or not isinstance(count, int)
            or not 1 <= count <= MAX_RATE_COUNT
        ):
            raise ValueError(f"must have a count from 1 to {MAX_RATE_COUNT:,}, got {count!r}")
        if not (isinstance(every, (int, float)) and math.isfinite(every)):
            raise ValueError(f"must have a finite period, got {every!r}")
        if not (1 <= every <= MAX_RATE_PERIOD and every == int(every)):
            raise ValueError(
                f"must have a period of a whole number of seconds from 1 to {MAX_RATE_PERIOD:,} "
                f"(a year), got {every!r}"
            )
        object.__setattr__(self, "per_seconds", float(every))

    @classmethod
    def parse(cls, text: str) -> RateLimit:
        """``"N/sec"``, ``"N/min"``, ``"N/hour"`` or ``"N/10s"``; a ValueError otherwise."""
        found = _RATE.match(text) if isinstance(text, str) else None
        if found is None or int(found.group(1)) < 1:
            raise ValueError(
                f"must be like '5/min' (a positive count per sec, min or hour), got {text!r}"
            )
        every = int(found.group(2) or 1) * int(_UNITS[found.group(3)])
        if every <= 0:
            raise ValueError(f"must have a positive period, got {text!r}")
        count = int(found.group(1)) if len(found.group(1)) < 20 else MAX_RATE_COUNT + 1
        try:
            return cls(count, float(min(every, MAX_RATE_PERIOD + 1)))
        except ValueError as exc:
            raise ValueError(f"{exc} (in {text!r})") from None

    def __str__(self) -> str:
        """``"5/min"``, or the period as a whole number of seconds (``"3/1234567s"``), which
        :meth:`parse` reads back."""
        for unit, seconds in (("hour", 3600.0), ("min", 60.0), ("sec", 1.0)):
            if self.per_seconds == seconds:
                return f"{self.count}/{unit}"
        return f"{self.count}/{int(self.per_seconds)}s"

"""The 500-tool registry every agent-framework adapter test searches: 498 fillers and the two
tools the scripted models look for, each made by the framework's own tool factory."""

from __future__ import annotations

from typing import Callable, TypeVar

T = TypeVar("T")


def agent_registry(make: Callable[[str, str, str], T]) -> list[T]:
    """``make(name, description, answer)`` for every tool of the registry (``answer`` is a
    format string of ``city``)."""
    made = [
        make(f"filler_{i}", f"Inventory record {i} for warehouse shelf {i}", "x")
        for i in range(498)
    ]
    made.append(make("get_weather", "Current weather forecast for a city", "sunny in {city}"))
    made.append(make("book_flight", "Book a flight ticket to a city", "booked to {city}"))
    return made

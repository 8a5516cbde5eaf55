"""``toolsift.result``: a :class:`Match` is a frozen dataclass whose fields are slots (no instance
``__dict__``), with every behaviour of the frozen dataclass it was: fields, ``replace``,
``asdict``, equality, hash, repr, frozen errors, copies, weak references and pickles (including
pickles of the class with an instance ``__dict__``), made the same way by the constructor,
``new_match`` and the compiled builder."""

from __future__ import annotations

import copy
import dataclasses
import pickle
import weakref
from typing import Any, Optional

import pytest
from toolsift import Match, Tool
from toolsift.result import new_match, new_matches

from .conftest import HAVE_RUST

TOOL = Tool(name="read_file", description="Read a file")
OTHER = Tool(name="write_file", description="Write a file")


def test_a_match_has_slots_and_no_instance_dict():
    match = Match(TOOL, 1.5)
    assert not hasattr(match, "__dict__")
    assert Match.__slots__ == ("tool", "score", "reason", "normalized_score", "__weakref__")
    assert _fields(match) == (TOOL, 1.5, "bm25", None)
    assert match.name == "read_file"


def test_a_match_keeps_the_dataclass_behaviour():
    match = Match(TOOL, 1.5, "exact_name", 0.5)
    assert dataclasses.is_dataclass(match)
    assert [f.name for f in dataclasses.fields(match)] == [
        "tool", "score", "reason", "normalized_score",
    ]  # fmt: skip
    assert dataclasses.replace(match, score=2.0) == Match(TOOL, 2.0, "exact_name", 0.5)
    # (a tool's read-only schema mapping cannot be deep-copied: a match of a name here)
    assert dataclasses.asdict(Match("x", 1.5)) == {  # type: ignore[arg-type]
        "tool": "x", "score": 1.5, "reason": "bm25", "normalized_score": None,
    }  # fmt: skip
    assert dataclasses.astuple(Match("x", 1.5)) == ("x", 1.5, "bm25", None)  # type: ignore[arg-type]
    assert repr(match) == (
        f"Match(tool={TOOL!r}, score=1.5, reason='exact_name', normalized_score=0.5)"
    )
    assert match == Match(TOOL, 1.5, "exact_name", 0.5)
    assert match != Match(OTHER, 1.5, "exact_name", 0.5)
    assert hash(match) == hash(Match(TOOL, 1.5, "exact_name", 0.5))
    assert Match.__match_args__ == ("tool", "score", "reason", "normalized_score")
    assert len({match, Match(TOOL, 1.5, "exact_name", 0.5)}) == 1


@pytest.mark.parametrize("name", ["score", "tool", "other"])
def test_a_match_is_frozen(name):
    match = Match(TOOL, 1.5)
    with pytest.raises(dataclasses.FrozenInstanceError, match=f"cannot assign to field '{name}'"):
        setattr(match, name, 0.0)
    with pytest.raises(dataclasses.FrozenInstanceError, match=f"cannot delete field '{name}'"):
        delattr(match, name)
    assert match.score == 1.5


def test_a_match_copies_pickles_and_takes_weak_references():
    match = Match(TOOL, 1.5, "bm25", 1.0)
    for protocol in range(pickle.HIGHEST_PROTOCOL + 1):
        assert pickle.loads(pickle.dumps(match, protocol)) == match
    assert copy.copy(match) == match
    assert copy.deepcopy(match) == match
    assert weakref.ref(match)() is match


def test_a_pickle_of_the_dict_backed_class_still_loads():
    # ``pickle.dumps(Match("x", 1.5))`` (protocol 4) of the class that kept its fields in an
    # instance ``__dict__``: ``copyreg.__newobj__`` and a BUILD of that dict.
    old = (
        b"\x80\x04\x95e\x00\x00\x00\x00\x00\x00\x00\x8c\x0ftoolsift.result\x94\x8c\x05Match"
        b"\x94\x93\x94)\x81\x94}\x94(\x8c\x04tool\x94\x8c\x01x\x94\x8c\x05score\x94G?\xf8"
        b"\x00\x00\x00\x00\x00\x00\x8c\x06reason\x94\x8c\x04bm25\x94\x8c\x10normalized_score"
        b"\x94Nub."
    )
    assert pickle.loads(old) == Match("x", 1.5)  # type: ignore[arg-type]


def test_a_subclass_keeps_its_own_attributes():
    class Tagged(Match):
        pass

    tagged = Tagged(TOOL, 1.5)
    tagged.tag = "mine"  # a subclass without slots has an instance dict
    assert tagged.tag == "mine"
    with pytest.raises(dataclasses.FrozenInstanceError):
        tagged.score = 0.0  # type: ignore[misc]


def test_new_match_is_the_constructor():
    for reason in ("bm25", "exact_name", "select", "keyword", "regex"):
        made = new_match(TOOL, 2.5, reason)  # type: ignore[arg-type]
        want = Match(TOOL, 2.5, reason)  # type: ignore[arg-type]
        assert made == want and repr(made) == repr(want) and hash(made) == hash(want)
        assert made.normalized_score is None
    assert new_matches([TOOL, OTHER], [(1, 3.0), (0, 1.0)], "bm25") == [
        Match(OTHER, 3.0), Match(TOOL, 1.0),
    ]  # fmt: skip


@dataclasses.dataclass(frozen=True)
class _DictMatch:
    """The fields of a match in an instance dict."""

    tool: Any
    score: float
    reason: str = "bm25"
    normalized_score: Optional[float] = None  # noqa: UP045


class _SlotsElsewhere:
    """The fields of a match in slots declared in another order, among others."""

    __slots__ = ("zeta", "reason", "alpha", "normalized_score", "tool", "score")


def _fields(obj: Any) -> tuple[Any, ...]:
    return (obj.tool, obj.score, obj.reason, obj.normalized_score)


@pytest.mark.parametrize("cls", [Match, _DictMatch, _SlotsElsewhere])
def test_the_compiled_builder_fills_any_layout(cls):
    if not HAVE_RUST:
        pytest.skip("toolsift._core is not built")
    from toolsift._core import _new_matches

    hits = [(1, 3.0), (0, -1.0), (1, 0.5)]
    for _ in range(2):  # the recipe found, then reused
        made = _new_matches(cls, [TOOL, OTHER], hits, "keyword")
        assert [type(m) for m in made] == [cls] * 3
        assert [_fields(m) for m in made] == [
            (OTHER, 3.0, "keyword", None),
            (TOOL, -1.0, "keyword", None),
            (OTHER, 0.5, "keyword", None),
        ]
    if cls is _SlotsElsewhere:
        with pytest.raises(AttributeError):
            made[0].zeta  # noqa: B018 (a slot the builder leaves alone)

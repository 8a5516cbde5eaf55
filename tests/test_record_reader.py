"""The Rust reader of raw tool items (``rust/build/item.rs``, no ``serde_json::Value`` tree) reads
what the loaders read: from generated JSON text (arbitrary Unicode, escapes, lone surrogates in
``\\u`` escapes, duplicate keys, nested schemas, values of the wrong type),
``ToolIndex.from_records`` gives the index and the errors of the loaders' path
(``ToolIndex(load_records(...))``), from bytes, from a file and from the parsed dicts."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st
from toolsift import ToolIndex
from toolsift._index.records import SourceTools, load_records
from toolsift.errors import ToolsiftError
from toolsift.limits import MAX_SCHEMA_DEPTH
from toolsift.loaders import load_tools

from .test_fastbuild import assert_same

pytest.importorskip("toolsift._core")

# A JSON value as text, built so that objects may repeat keys and strings may be escaped in any
# way JSON allows (``json.dumps`` would do neither).
_ESCAPES = {'"': '\\"', "\\": "\\\\", "\n": "\\n", "\t": "\\t", "\r": "\\r", "\b": "\\b"}


@st.composite
def _string(draw: st.DrawFn, words: st.SearchStrategy[str] | None = None) -> str:
    """A JSON string literal of arbitrary text, each character written plainly or escaped."""
    text = draw(words if words is not None else st.text(max_size=12))
    out = []
    for ch in text:
        if ch in _ESCAPES:
            out.append(_ESCAPES[ch])
        elif ord(ch) < 0x20 or draw(st.integers(0, 5)) == 0:
            if ord(ch) > 0xFFFF:  # a surrogate pair
                v = ord(ch) - 0x10000
                out.append(f"\\u{0xD800 + (v >> 10):04x}\\u{0xDC00 + (v & 0x3FF):04X}")
            else:
                out.append(f"\\u{ord(ch):04x}")
        else:
            out.append(ch)
    if draw(st.integers(0, 150)) == 0:  # a lone surrogate, read as Python reads it
        out.insert(draw(st.integers(0, len(out))), f"\\u{draw(st.integers(0xD800, 0xDFFF)):04x}")
    return '"' + "".join(out) + '"'


_words = st.sampled_from(["read", "file", "issue", "send", "message", "日本語", "😀", "a b", ""])
_text = st.one_of(_string(st.lists(_words, max_size=4).map(" ".join)), _string())
_scalar = st.one_of(
    st.just("null"),
    st.just("true"),
    st.just("false"),
    st.integers(-5, 5).map(str),
    st.sampled_from(["0.0", "-0.0", "1e3", "2.5", "-1E-2"]),
    _text,
)


def _object(pairs: list[tuple[str, str]]) -> str:
    return "{" + ", ".join(f"{k}: {v}" for k, v in pairs) + "}"


_schema_key = st.one_of(
    st.sampled_from(['"properties"', '"items"', '"description"', '"type"', '"x"']),
    _string(),
)
_schema: st.SearchStrategy[str] = st.recursive(
    _scalar,
    lambda inner: st.one_of(
        st.lists(inner, max_size=3).map(lambda vs: "[" + ", ".join(vs) + "]"),
        st.lists(st.tuples(_schema_key, inner), max_size=4).map(_object),
        st.lists(
            st.tuples(
                _string(),
                st.lists(st.tuples(st.just('"description"'), _text), max_size=2).map(_object),
            ),
            max_size=4,
        ).map(lambda props: _object([('"type"', '"object"'), ('"properties"', _object(props))])),
    ),
    max_leaves=14,
)
_value = st.one_of(_text, _text, _scalar, _schema)


@st.composite
def _mostly(draw: st.DrawFn, good: st.SearchStrategy[str], one_in: int) -> str:
    """Mostly ``good``, one time in ``one_in`` anything (of the wrong type, perhaps)."""
    return draw(_value if draw(st.integers(1, one_in)) == 1 else good)


_field = _mostly(st.one_of(_text, st.just("null")), 8)
_name = _mostly(_string(st.lists(_words, min_size=1, max_size=3).map("_".join)), 12)


@st.composite
def _item(draw: st.DrawFn) -> str:
    """One tool item's JSON text: the fields the loaders read (some of the wrong type, some
    twice), perhaps an MCP schema and annotations, perhaps unknown keys."""
    pairs = [('"name"', draw(_name))]
    for key in ("description", "title", "summary", "search_hint", "label", "source", "server"):
        if draw(st.integers(0, 3)) == 0:
            pairs.append((f'"{key}"', draw(_field)))
    kind = draw(st.sampled_from(["record", "record", "mcp", "plain"]))
    if kind == "mcp":
        pairs.append(('"inputSchema"', draw(_schema)))
        if draw(st.booleans()):
            pairs.append(('"annotations"', _object([('"title"', draw(_field))])))
    elif kind == "record" and draw(st.booleans()):
        pairs.append(('"input_schema"', draw(_schema)))
    if draw(st.integers(0, 4)) == 0:
        pairs.append((draw(_string()), draw(_value)))  # an unknown key
    if draw(st.integers(0, 4)) == 0:  # a key given twice: the last value counts
        pairs.append(draw(st.sampled_from(pairs[:1] + pairs[-1:]))[:1] + (draw(_field),))
    if draw(st.integers(0, 30)) == 0:
        pairs.append(('"type"', draw(st.sampled_from(["null", '"function"']))))
    order = draw(st.permutations(range(len(pairs))))
    return _object([pairs[i] for i in order])


def _outcome(build: Any) -> Any:
    try:
        return build()
    except ToolsiftError as exc:
        return (type(exc), str(exc))


def _check(got: Any, want: Any, generated: bool = False) -> None:
    """``got`` is ``want``: the same error, or an index of the same tools, scores and results
    (``generated``: note which path built it, for ``--hypothesis-show-statistics``)."""
    if isinstance(want, tuple):
        assert got == want
        return
    assert isinstance(got, ToolIndex), got
    if generated:
        event("Rust path" if isinstance(got._tools, SourceTools) else "loaders' path")
    assert_same(got, want, ["read file", "send a message 日本語"])


@settings(
    max_examples=200,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture],
)
@given(
    items=st.lists(_item(), min_size=1, max_size=4),
    server=st.one_of(st.none(), st.sampled_from(["fs", "@ai/slack", "fs"])),
    form=st.sampled_from(["jsonl", "list", "tools"]),
)
def test_generated_json_reads_as_the_loaders_read_it(
    items: list[str], server: str | None, form: str, tmp_path: Path
) -> None:
    if form == "jsonl":
        text = "\n".join(items) + "\n"
    elif form == "list":
        text = "[" + ",\n".join(items) + "]"
    else:
        text = '{"tools": [' + ", ".join(items) + '], "server": "gh"}'
    data = text.encode("utf-8")
    want = _outcome(lambda: ToolIndex(load_records(data, server)))
    _check(_outcome(lambda: ToolIndex.from_records(data, server=server)), want, True)
    path = tmp_path / ("tools.jsonl" if form == "jsonl" else "tools.json")
    path.write_bytes(data)
    want_file = _outcome(lambda: ToolIndex(load_records(path, server)))
    _check(_outcome(lambda: ToolIndex.from_records(path, server=server)), want_file)
    if form == "jsonl":  # the parsed dicts (a lone surrogate stays one in Python's str)
        dicts = [json.loads(item) for item in items]
        want_dicts = _outcome(lambda: ToolIndex(load_tools(dicts, server=server)))
        _check(_outcome(lambda: ToolIndex.from_records(dicts, server=server)), want_dicts)


def _jsonl(*items: str) -> bytes:
    return "\n".join(items).encode("utf-8")


@pytest.mark.parametrize(
    "items",
    [
        # Escapes, borrowed and unescaped text, and duplicate keys (the last value counts, at
        # the place of the first, as json.loads keeps it).
        (
            r'{"name": "read_file", "name": "r\u00e9ad",'
            r' "description": "Read\ta \"file\" \ud83d\ude00"}',
            r'{"name": "w", "input_schema": {"properties": {"b": {"description": "B1"}, "a": {},'
            r' "b": {"description": "B2"}}, "properties": {"z": {"description": "Z"},'
            r' "y": {"description": "Y", "items": {"properties": {"q": {"description": "Q"}}}}}}}',
        ),
        # Values of the wrong type where nothing reads them, and nested unread values.
        (
            r'{"name": "a", "meta": {"x": [1, {"y": null}], "z": "\u0000"}, "server": null}',
            r'{"name": "b", "input_schema": {"enum": [1, 2.5e10, "\u00e9"], "properties": {}}}',
        ),
    ],
)
def test_escapes_and_duplicate_keys_take_the_rust_path(items: tuple[str, ...]) -> None:
    data = _jsonl(*items)
    fast = ToolIndex.from_records(data)
    assert isinstance(fast._tools, SourceTools)
    _check(fast, ToolIndex(load_records(data, None)))


def _nested(depth: int) -> str:
    return '{"a": ' * depth + "{}" + "}" * depth


@pytest.mark.parametrize(
    ("items", "fast"),
    [
        ((r'{"name": "a", "description": "half \ud83d"}',), False),  # read text: Python's U+FFFD
        ((r'{"name": "a", "input_schema": {"x": ' + _nested(MAX_SCHEMA_DEPTH - 2) + "}}",), True),
        ((r'{"name": "a", "input_schema": {"x": ' + _nested(MAX_SCHEMA_DEPTH - 1) + "}}",), False),
        (('{"name": "' + "n" * 1025 + '"}',), False),
        ((r'{"name": "a", "x": NaN}',), False),
        (('{"name": "a"}', '{"name": 3}'), False),
    ],
)
def test_caps_and_what_json_cannot_say_are_left_to_the_loaders(
    items: tuple[str, ...], fast: bool
) -> None:
    data = _jsonl(*items, '{"name": "other"}')
    want = _outcome(lambda: ToolIndex(load_records(data, None)))
    got = _outcome(lambda: ToolIndex.from_records(data))
    _check(got, want)
    if not isinstance(want, tuple):
        assert isinstance(got._tools, SourceTools) is fast
    dicts = [json.loads(item) for item in items]
    want_dicts = _outcome(lambda: ToolIndex(load_tools(dicts)))
    _check(_outcome(lambda: ToolIndex.from_records(dicts)), want_dicts)


def test_the_compressed_source_gives_every_tool_and_saves_identically(tmp_path: Path) -> None:
    import pickle

    from toolsift.loaders import load_catalog

    items = [
        {
            "name": f"tool_{i}",
            "description": f"Tool number {i} reads file {i % 7} — é 😀",
            "server": f"server-{i % 5}",
            "input_schema": {"properties": {f"p{i}": {"description": f"param {i}"}}},
        }
        for i in range(200)  # several blocks of the compressed source
    ]
    path = tmp_path / "tools.jsonl"
    path.write_text("\n".join(json.dumps(item) for item in items) + "\n", encoding="utf-8")
    fast = ToolIndex.from_records(path)
    slow = ToolIndex(load_catalog(path))
    assert isinstance(fast._tools, SourceTools)
    columns = fast._tools.columns  # packed in Rust: each distinct server stored once
    assert type(columns).__name__ == "NameColumns"
    assert (columns.servers[0], columns.servers[5], columns.servers[6]) == (
        "server-0",
        "server-0",
        "server-1",
    )
    assert list(columns.names) == [t.name for t in slow.tools]
    assert fast.to_bytes() == slow.to_bytes()  # every tool read back from its block
    assert fast.tools == slow.tools
    again = pickle.loads(pickle.dumps(ToolIndex.from_records(path)))
    assert_same(again, slow, ["read file 3", "select:tool_150"])


def test_from_records_takes_exactly_the_constructors_options() -> None:
    """from_records' keyword options are the constructor's (one signature): each is accepted
    with the constructor's default, and a name the constructor does not take is a TypeError
    naming it, before anything is read."""
    import inspect

    from toolsift._index.records import IndexOptions

    params = inspect.signature(ToolIndex.__init__).parameters
    keywords = {n for n, p in params.items() if p.kind is inspect.Parameter.KEYWORD_ONLY}
    assert set(IndexOptions.__annotations__) == keywords
    items = [{"name": "read_file", "description": "Read a file from disk"}]
    defaults = {n: params[n].default for n in keywords}
    built = ToolIndex.from_records(items, server="fs", **defaults)
    assert built.to_bytes() == ToolIndex.from_records(items, server="fs").to_bytes()
    omp = ToolIndex.from_records(items, engine="python", profile="omp", k1=1.5, semantic=False)
    assert (omp.engine, omp.profile, omp.params[0]) == ("python", "omp", 1.5)
    with pytest.raises(TypeError, match="unexpected keyword argument 'engin'"):
        ToolIndex.from_records(iter(()), engin="rust")  # type: ignore[call-arg]

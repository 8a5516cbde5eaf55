"""The search view: seed 000's limits and empty states, plain and with rich."""

from __future__ import annotations

import io

from toolsift.render import (
    MATCH_DESCRIPTION_LEN,
    MATCH_LABEL_LEN,
    NO_MATCHES,
    NO_TOOLS_LOADED,
    print_details,
    render_text,
)


def _details(n: int = 7) -> dict:
    return {
        "query": "open a pull request",
        "limit": 8,
        "total_tools": 221,
        "activated_tools": [f"tool_{i}" for i in range(n)],
        "active_selected_tools": [],
        "tools": [
            {
                "name": f"tool_{i}",
                "label": f"github/{'very_long_label_' * 8}{i}",
                "description": "Open a new pull request.\nIt proposes merging a head branch " * 4,
                "server_name": "github",
                "schema_keys": [],
                "score": 24.1539307 - i,
            }
            for i in range(n)
        ],
    }


def test_plain_view_has_status_five_items_and_cut_fields():
    text = render_text(_details())
    lines = text.splitlines()
    assert lines[0] == 'Activated 7 of 221 discoverable tools for "open a pull request"'
    items = [line for line in lines if line.startswith("- ")]
    assert len(items) == 5
    label = items[0][2:].split("  [")[0]
    assert len(label) == MATCH_LABEL_LEN and label.endswith("…")
    assert items[0].endswith("  [github]  24.154")
    description = lines[2].strip()
    assert len(description) == MATCH_DESCRIPTION_LEN and "\n" not in description
    assert lines[-1] == "  ... 2 more"
    assert len(render_text(_details(), expanded=True).splitlines()) == 1 + 7 * 2


def test_empty_states():
    assert render_text({"query": "x", "total_tools": 0, "tools": []}) == NO_TOOLS_LOADED
    assert render_text({"query": "x", "total_tools": 9, "tools": []}) == NO_MATCHES
    assert "already active: read" in render_text(
        {"query": "x", "total_tools": 9, "tools": [], "already_active_tools": ["read"]}
    )
    assert render_text(None) == "Tool search returned no details to show."


def test_print_to_a_pipe_is_plain_text():
    out = io.StringIO()
    print_details(_details(2), out)
    assert out.getvalue() == render_text(_details(2)) + "\n"
    assert "\x1b[" not in out.getvalue()


def test_no_color_keeps_a_terminal_plain(monkeypatch):
    class Terminal(io.StringIO):
        def isatty(self) -> bool:
            return True

    monkeypatch.setenv("NO_COLOR", "1")
    out = Terminal()
    print_details(_details(2), out)
    assert out.getvalue() == render_text(_details(2)) + "\n"


def test_rich_on_a_terminal(monkeypatch):
    class Terminal(io.StringIO):
        def isatty(self) -> bool:
            return True

    monkeypatch.delenv("NO_COLOR", raising=False)
    monkeypatch.setenv("TERM", "xterm-256color")
    monkeypatch.setenv("COLUMNS", "200")
    out = Terminal()
    print_details(_details(), out)
    text = out.getvalue()
    assert "\x1b[" in text  # styled
    assert "Activated 7 of 221 discoverable tools" in text
    assert text.count("24.154") == 1 and "20.154" in text and "19.154" not in text
    assert "... 2 more" in text
    assert "├──" in text or "└──" in text


def test_names_are_shown_on_request():
    details = _details(1)
    assert "tool_0" not in render_text(details)
    assert render_text(details, names=True).splitlines()[1].endswith("  24.154  tool_0")

"""The README's first screen works as written: its Python example and its CLI command."""

from __future__ import annotations

import re
import shlex
import subprocess
import sys
from pathlib import Path

README = Path(__file__).resolve().parents[1] / "README.md"


def first_screen() -> str:
    text = README.read_text(encoding="utf-8")
    return text.split("\n---\n", 1)[0]


def test_first_screen_has_exactly_two_setup_commands():
    bash = re.findall(r"```bash\n(.*?)```", first_screen(), re.S)
    assert len(bash) == 1
    commands = [line for line in bash[0].splitlines() if line.strip()]
    assert len(commands) == 2
    assert commands[0].startswith("pip install . && toolsift search ")
    assert commands[1].split("#")[0].strip() == "pip install -e '.[test]' && pytest"


def test_python_example_runs(capsys):
    code = re.findall(r"```python\n(.*?)```", first_screen(), re.S)
    assert len(code) == 1
    assert len([line for line in code[0].splitlines() if line.strip()]) <= 5
    exec(compile(code[0], str(README), "exec"), {})
    lines = capsys.readouterr().out.splitlines()
    assert len(lines) == 3
    assert lines[0].split()[0] == "mcp__slack__send_message"


def test_cli_command_ranks_the_builtin_catalogue():
    bash = re.findall(r"```bash\n(.*?)```", first_screen(), re.S)[0]
    search = bash.splitlines()[0].split("&&", 1)[1].split("#")[0]
    argv = shlex.split(search)
    assert argv[:2] == ["toolsift", "search"]
    out = subprocess.run(
        [sys.executable, "-m", "toolsift", *argv[1:]],
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    assert "mcp__github__create_pull_request" in out

"""Every code block of README.md and docs/*.md runs, and prints what the page says it prints.

The pages are parsed with Sybil (its Markdown fenced-block lexer, regions and examples):

* a ``python`` block runs in a fresh namespace, so it must define every name it uses; when the
  next block (blank lines or a short "prints:" line between them at most) is a ``text`` block,
  that is the block's expected output (``...`` matches anything, whitespace runs compare equal).
  A block holding ``>>>`` is a doctest instead;
* a ``console`` block holds ``$ toolsift ...`` lines, each followed by its expected output: each
  command is run through the CLI in-process (``toolsift.cli.main``) and must exit with 0;
* ``bash`` blocks are set-up commands (``pip install``, ``pytest``, ...) and are not run, so they
  must not hide a ``toolsift`` command; the README's first-screen search is run separately, as a
  new user runs it;
* ``<!-- skip: next -->`` before a block leaves it out (none does today).

The blocks of one page run in order in one temporary working directory, so a page may write a
file (a catalogue) that a later command reads.
"""

from __future__ import annotations

import contextlib
import doctest
import io
import re
import shlex
import subprocess
import sys
import textwrap
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

sybil = pytest.importorskip("sybil", reason="sybil is in the test extra")
from sybil import Document, Example, Region, Sybil  # noqa: E402
from sybil.parsers.markdown.lexers import FencedCodeBlockLexer  # noqa: E402
from toolsift.cli import main as cli_main  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
README = ROOT / "README.md"
PAGES = [README, *sorted((ROOT / "docs").glob("*.md"))]
CHECK = doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE
SKIP = re.compile(r"<!--\s*skip:\s*next\s*-->")
# What may stand between a python block and its output block.
BETWEEN_OUTPUT = re.compile(r"\s*(?:(?:prints|output)[^\n]{0,40}:\s*)?")
SETUP = ("pip ", "python", "pytest", "cargo ", "maturin ", "mkdocs ", "ruff ", "pyright ", "git ")


@dataclass(frozen=True)
class Block:
    """One example: a fenced block, and for a python block its expected output."""

    language: str
    source: str
    expected: str | None = None


def _compare(want: str, got: str, what: str) -> str | None:
    """``None`` when ``got`` matches ``want`` (doctest's ELLIPSIS and NORMALIZE_WHITESPACE)."""
    checker = doctest.OutputChecker()
    if checker.check_output(want.rstrip() + "\n", got.rstrip() + "\n", CHECK):
        return None
    return f"{what} printed:\n{got}\nbut the page shows:\n{want}"


def _run_python(example: Example) -> str | None:
    block: Block = example.parsed
    namespace = {"__name__": "__docs_example__"}  # fresh: the block defines every name it uses
    if ">>>" in block.source:
        test = doctest.DocTestParser().get_doctest(
            block.source, namespace, str(example.path), str(example.path), example.line
        )
        out = io.StringIO()
        runner = doctest.DocTestRunner(optionflags=CHECK)
        runner.run(test, out=out.write)
        return out.getvalue() or None
    stdout = io.StringIO()
    code = compile(block.source, f"{example.path}:{example.line}", "exec")
    with contextlib.redirect_stdout(stdout):
        exec(code, namespace)
    if block.expected is None:
        return None
    return _compare(block.expected, stdout.getvalue(), "the block")


def console_commands(source: str) -> Iterator[tuple[str, str]]:
    """``(command, expected output)`` for each ``$ `` line of a console block."""
    command: str | None = None
    lines: list[str] = []
    for line in source.splitlines():
        if line.startswith("$ "):
            if command is not None:
                yield command, "\n".join(lines)
            command, lines = line[2:], []
        elif command is not None:
            lines.append(line)
    if command is not None:
        yield command, "\n".join(lines)


def _run_console(example: Example) -> str | None:
    block: Block = example.parsed
    commands = list(console_commands(block.source))
    if not commands:
        return "a console block with no '$ ' command"
    for command, expected in commands:
        argv = shlex.split(command)
        if argv[0] != "toolsift":
            return f"only toolsift commands are run, not: {command}"
        stdout, stderr = io.StringIO(), io.StringIO()
        with contextlib.redirect_stdout(stdout), contextlib.redirect_stderr(stderr):
            code = cli_main(argv[1:])
        if code != 0:
            return f"$ {command}\nexited with {code}: {stderr.getvalue()}"
        problem = _compare(expected, stdout.getvalue(), f"$ {command}")
        if problem:
            return problem
    return None


def _not_run(example: Example) -> None:
    """Set-up commands: checked by ``test_setup_blocks_hide_no_toolsift_command``."""


class PageParser:
    """Sybil parser: one region per fenced block, a python block paired with its output."""

    def __init__(self) -> None:
        self.lexer = FencedCodeBlockLexer(language=r"[\w+-]*")

    def __call__(self, document: Document) -> Iterable[Region]:
        lexed = list(self.lexer(document))
        used: set[int] = set()
        for i, region in enumerate(lexed):
            if i in used:
                continue
            language = region.lexemes["language"]
            source = textwrap.dedent(str(region.lexemes["source"]))
            before = document.text[lexed[i - 1].end if i else 0 : region.start]
            if SKIP.search(before):
                continue
            end, expected = region.end, None
            if language == "python" and i + 1 < len(lexed):
                following = lexed[i + 1]
                gap = document.text[region.end : following.start]
                if following.lexemes["language"] == "text" and BETWEEN_OUTPUT.fullmatch(gap):
                    expected = str(following.lexemes["source"])
                    end = following.end
                    used.add(i + 1)
            if language == "python":
                evaluator = _run_python
            elif language == "console":
                evaluator = _run_console
            elif language in ("bash", "sh", "text"):
                evaluator = _not_run
            else:
                raise ValueError(f"{document.path}: a {language or 'plain'} block: tag it")
            yield Region(region.start, end, Block(language, source, expected), evaluator)


SYBIL = Sybil(parsers=[PageParser()], path=str(ROOT))


def _examples(page: Path) -> list[Example]:
    return list(SYBIL.parse(page))


# Pages made of directives only: mkdocstrings' ``::: toolsift.X`` (the docstrings' doctests run
# in test_docstrings.py). agents.md includes a README section (``--8<-- "README.md:agents"``, run
# where it is written) and holds blocks of its own, run here.
DIRECTIVE_PAGES = {"reference.md"}
INCLUDE = re.compile(r'^--8<-- "([^":]+):([^"]+)"$', re.MULTILINE)


@pytest.mark.parametrize(
    "page",
    [p for p in PAGES if p.name not in DIRECTIVE_PAGES],
    ids=lambda p: str(p.relative_to(ROOT)),
)
def test_every_block_of_the_page_runs(
    page: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("NO_COLOR", "1")
    examples = _examples(page)
    assert examples, f"{page.name} has no code block"
    for example in examples:
        example.evaluate()


def test_every_page_shows_runnable_examples() -> None:
    """Each page but the API reference holds python or console blocks, and the README both."""
    counts = {}
    for page in PAGES:
        blocks = [e.parsed for e in _examples(page)]
        counts[page.name] = sum(b.language in ("python", "console") for b in blocks)
    for name in DIRECTIVE_PAGES:
        assert counts.pop(name) == 0, name
    assert all(counts.values()), counts
    readme = [e.parsed.language for e in _examples(README)]
    assert "python" in readme and "console" in readme


def test_included_sections_exist_and_hold_tested_blocks() -> None:
    """Each ``--8<-- "FILE:SECTION"`` names a marked section of a page whose blocks run here."""
    includes = INCLUDE.findall((ROOT / "docs" / "agents.md").read_text(encoding="utf-8"))
    assert includes == [("README.md", "agents")]
    for file, section in includes:
        text = (ROOT / file).read_text(encoding="utf-8")
        start = text.index(f"<!-- --8<-- [start:{section}] -->")
        end = text.index(f"<!-- --8<-- [end:{section}] -->")
        assert text[start:end].count("```python") >= 2
        assert ROOT / file in PAGES


def test_setup_blocks_hide_no_toolsift_command() -> None:
    """A ``bash`` block holds only set-up commands; every CLI example is a checked console."""
    for page in PAGES:
        for example in _examples(page):
            block = example.parsed
            if block.language not in ("bash", "sh"):
                continue
            for line in block.source.splitlines():
                command = line.split("#", 1)[0].strip()
                if not command:
                    continue
                assert command.startswith(SETUP), f"{page.name}:{example.line}: {line}"
                rest = command.split("&&", 1)[1] if "&&" in command else ""
                if "toolsift " in rest:
                    assert page == README and example.line < first_screen_end(), line


# --- the README's first screen ---------------------------------------------------------------


def first_screen() -> str:
    return README.read_text(encoding="utf-8").split("\n---\n", 1)[0]


def first_screen_end() -> int:
    return first_screen().count("\n") + 1


def test_first_screen_has_exactly_two_setup_commands() -> None:
    bash = re.findall(r"```bash\n(.*?)```", first_screen(), re.S)
    assert len(bash) == 1
    commands = [line for line in bash[0].splitlines() if line.strip()]
    assert len(commands) == 2
    assert commands[0].startswith("pip install . && toolsift search ")
    assert commands[1].split("#")[0].strip() == "pip install -e '.[test]' && pytest"


def test_first_screen_python_example_is_short() -> None:
    code = re.findall(r"```python\n(.*?)```", first_screen(), re.S)
    assert len(code) == 1
    assert len([line for line in code[0].splitlines() if line.strip()]) <= 5


def test_first_screen_search_runs_as_a_new_user_runs_it() -> None:
    """The first command's search, as a separate process (``toolsift`` as installed)."""
    bash = re.findall(r"```bash\n(.*?)```", first_screen(), re.S)[0]
    search = bash.splitlines()[0].split("&&", 1)[1].split("#")[0]
    argv = shlex.split(search)
    assert argv[:2] == ["toolsift", "search"]
    proc = subprocess.run(
        [sys.executable, "-m", "toolsift", *argv[1:]], capture_output=True, text=True, check=True
    )
    assert "mcp__github__create_pull_request" in proc.stdout
    assert "Activated" not in proc.stdout  # a one-off search activates nothing


def test_pages_use_no_internal_words() -> None:
    """Users never meet the project's internal labels (CONTRIBUTING.md may use them)."""
    internal = re.compile(r"\bseeds?\b|issue[- ]\d|\.\./shared", re.IGNORECASE)
    for page in PAGES:
        for number, line in enumerate(page.read_text(encoding="utf-8").splitlines(), 1):
            assert not internal.search(line), f"{page.name}:{number}: {line}"

"""Running the CLI in-process for the CLI tests."""

from __future__ import annotations

import pytest
from toolsift.cli import main


def cli(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    """Run ``toolsift argv``; the exit code, stderr and stdout."""
    try:
        code = main(list(argv))
    except SystemExit as exit_:  # argparse's usage errors and --help
        code = exit_.code if isinstance(exit_.code, int) else 1
    captured = capsys.readouterr()
    return code, captured.err, captured.out

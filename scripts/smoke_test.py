"""Install a built toolsift into a fresh virtual environment and check that it works.

The release workflow runs this on every wheel it can run (and on the sdist) before anything is
published; run it the same way locally::

    maturin build --release -o dist && python scripts/smoke_test.py dist
    maturin sdist -o dist-sdist && python scripts/smoke_test.py dist-sdist --sdist

It makes a virtual environment in a temporary directory with the Python running it, installs
toolsift from the given directory only (``--no-index --find-links DIST``, so a release on PyPI
can never stand in for the file under test; its dependencies then come from PyPI), and, from a
directory outside the source tree, checks:

* ``import toolsift`` is the installed package, with its compiled engine (``--allow-pure`` for a
  build without one), and a search of the built-in catalogue finds a pull-request tool;
* ``toolsift --version`` prints the version written in ``Cargo.toml`` (the one place it lives);
* ``toolsift search 'open a pull request'`` succeeds and lists a pull-request tool.

Exit status 0 when every check passes; otherwise the failed check is printed and the status is 1.
"""

from __future__ import annotations

import argparse
import os
import re
import subprocess
import sys
import tempfile
import venv
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
QUERY = "open a pull request"
IMPORT_CHECK = (
    "import toolsift; "
    "print(toolsift.ToolIndex(toolsift.default_tools()).search({query!r}, limit=1)[0].name); "
    "print(toolsift.__file__); "
    "print(','.join(toolsift.available_engines()))"
)


class SmokeFailure(Exception):
    """A check failed; the message says which and what was seen."""


def cargo_version(cargo_toml: Path) -> str:
    """The ``[package]`` version of ``Cargo.toml``."""
    text = cargo_toml.read_text(encoding="utf-8")
    package = re.search(r"^\[package\]\s*$(.*?)(?=^\[|\Z)", text, re.M | re.S)
    found = package and re.search(r'^version\s*=\s*"([^"]+)"', package.group(1), re.M)
    if not found:
        raise SmokeFailure(f"no [package] version in {cargo_toml}")
    return found.group(1)


def run(args: list[str], cwd: Path) -> str:
    """Run one command; its standard output, or a failure naming the command."""
    print("$", " ".join(args), flush=True)
    done = subprocess.run(
        args,
        cwd=cwd,
        capture_output=True,
        encoding="utf-8",  # what PYTHONIOENCODING asks of the child, whatever the console's
        errors="replace",
        env=_clean_env(),
    )
    sys.stdout.write(done.stdout)
    sys.stderr.write(done.stderr)
    if done.returncode != 0:
        raise SmokeFailure(f"{args[0]} exited with status {done.returncode}")
    return done.stdout


def _clean_env() -> dict[str, str]:
    """The environment without what would import toolsift from elsewhere."""
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "PYTHONHOME")}
    env["PYTHONNOUSERSITE"] = "1"
    env["PYTHONIOENCODING"] = "utf-8"
    return env


def executables(env_dir: Path) -> tuple[Path, Path]:
    """The environment's python and toolsift command."""
    scripts = env_dir / ("Scripts" if os.name == "nt" else "bin")
    suffix = ".exe" if os.name == "nt" else ""
    return scripts / f"python{suffix}", scripts / f"toolsift{suffix}"


def install(python: Path, dist: Path, sdist: bool, work: Path) -> None:
    """toolsift from ``dist`` alone (never an index), then its dependencies."""
    pip = [str(python), "-m", "pip", "--disable-pip-version-check", "install", "--no-cache-dir"]
    if sdist:
        archives = sorted(dist.glob("toolsift-*.tar.gz"))
        if len(archives) != 1:
            raise SmokeFailure(f"expected one toolsift sdist in {dist}, found {len(archives)}")
        # Building it needs maturin from the index (build isolation); toolsift itself is the file.
        run([*pip, "--no-deps", str(archives[0])], work)
    else:
        run([*pip, "--no-deps", "--no-index", "--find-links", str(dist), "toolsift"], work)
    # Now installed: pip keeps it and adds what it depends on.
    run([*pip, "--find-links", str(dist), "toolsift"], work)


def check(python: Path, command: Path, expected: str, allow_pure: bool, work: Path) -> None:
    out = run([str(python), "-c", IMPORT_CHECK.format(query=QUERY)], work).splitlines()
    name, location, engines = out[0], Path(out[1]).resolve(), out[2].split(",")
    if "pull_request" not in name:
        raise SmokeFailure(f"the best match for {QUERY!r} is {name!r}, not a pull-request tool")
    if ROOT in location.parents:
        raise SmokeFailure(f"toolsift was imported from the source tree ({location})")
    if "rust" not in engines and not allow_pure:
        raise SmokeFailure(f"the compiled engine is missing (engines: {engines})")
    version = run([str(command), "--version"], work).strip()
    if version != f"toolsift {expected}":
        raise SmokeFailure(f"toolsift --version printed {version!r}, Cargo.toml says {expected}")
    found = run([str(command), "search", QUERY], work)
    if "create_pull_request" not in found:
        raise SmokeFailure(f"toolsift search {QUERY!r} did not list create_pull_request")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("dist", type=Path, help="the directory holding the built wheel(s)")
    parser.add_argument("--sdist", action="store_true", help="install the sdist in DIST")
    parser.add_argument(
        "--allow-pure", action="store_true", help="accept a build without the compiled engine"
    )
    parser.add_argument(
        "--cargo-toml", type=Path, default=ROOT / "Cargo.toml", help="where the version is"
    )
    args = parser.parse_args(argv)
    for stream in (sys.stdout, sys.stderr):  # a Windows console may not encode every character
        reconfigure = getattr(stream, "reconfigure", None)
        if reconfigure is not None:
            reconfigure(errors="replace")
    try:
        expected = cargo_version(args.cargo_toml)
        with tempfile.TemporaryDirectory(prefix="toolsift-smoke-") as tmp:
            work = Path(tmp)
            venv.EnvBuilder(with_pip=True, clear=True).create(work / "env")
            python, command = executables(work / "env")
            install(python, args.dist.resolve(), args.sdist, work)
            check(python, command, expected, args.allow_pure, work)
    except SmokeFailure as failure:
        print(f"smoke test FAILED: {failure}", file=sys.stderr)
        return 1
    print(f"smoke test passed: toolsift {expected}")
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""Running the real command line on a copy of a site, and fingerprinting its output."""

from __future__ import annotations

import hashlib
import shutil
import signal
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "bench"))
from catalogue_cut import named_models_only  # noqa: E402,F401  (a test's copy is cut as the bench's quick run's is)

SOURCES = ("data", "content", "templates", "locales")


def run_cli(*args: str, cwd: Path = ROOT, timeout: int = 300, engine: Path = ROOT) -> subprocess.CompletedProcess:
    """``build.py ARGS`` in a fresh interpreter, as an editor runs it; ``engine``: the folder of the build.py
    (and the vramsite/ it runs), a copy where a test edits the engine."""
    return subprocess.run([sys.executable, str(engine / "build.py"), *args],
                          capture_output=True, text=True, cwd=cwd, timeout=timeout)


def as_from_a_terminal() -> None:
    """``preexec_fn`` for a command a test stops with Ctrl-C: it gets Ctrl-C as from an editor's terminal.

    A shell script's background job (``pytest ... &``) starts with SIGINT ignored, and a command started from
    it would inherit that and never see the test's Ctrl-C.
    """
    signal.signal(signal.SIGINT, signal.SIG_DFL)


def run_build(site: Path) -> subprocess.CompletedProcess:
    return run_cli("build", "--site", str(site), "--out", str(site / "site"))


def hashes(folder: Path) -> dict[str, str]:
    """Every file under ``folder`` with the SHA-256 of its bytes."""
    return {path.relative_to(folder).as_posix(): hashlib.sha256(path.read_bytes()).hexdigest()
            for path in sorted(folder.rglob("*")) if path.is_file()}


def copy_sources(target: Path, source: Path = ROOT) -> Path:
    """Copy a site's data/, content/, templates/ and locales/ into ``target``."""
    for name in SOURCES:
        shutil.copytree(source / name, target / name)
    return target


def copy_engine(target: Path) -> Path:
    """The main site's sources and the engine that builds them (build.py, vramsite/), for a recipe that edits
    both; ``run_cli(..., engine=target)`` runs the copy."""
    copy_sources(target)
    shutil.copy2(ROOT / "build.py", target / "build.py")
    shutil.copytree(ROOT / "vramsite", target / "vramsite", ignore=shutil.ignore_patterns("__pycache__"))
    return target

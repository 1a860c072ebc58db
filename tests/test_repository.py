"""The README's set-up commands are the ones CI runs."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def readme_commands() -> list[str]:
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    block = re.search(r"## Set up.*?```sh\n(.*?)```", readme, re.S)
    assert block, "README has a Set up section with a sh block"
    return [line for line in block.group(1).splitlines() if line.strip()]


def test_readme_has_two_setup_commands_build_then_test():
    commands = readme_commands()
    assert len(commands) == 2
    assert "build.py" in commands[0] and "pytest" in commands[1]


def test_ci_runs_the_readme_commands_and_stops_on_failure():
    ci = (ROOT / ".ci" / "run").read_text(encoding="utf-8")
    assert "set -euo pipefail" in ci
    ci_lines = [line.strip() for line in ci.splitlines()]
    for command in readme_commands():
        assert command in ci_lines

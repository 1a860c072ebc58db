"""The benchmark runs end to end (a smoke test: its figures are not asserted against targets)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def test_bench_quick_runs_and_reports_every_measurement(tmp_path):
    out = tmp_path / "bench.json"
    run = subprocess.run([sys.executable, str(ROOT / "bench" / "run.py"), "--quick", "--json", str(out)],
                         capture_output=True, text=True, timeout=600)
    assert run.returncode == 0, run.stderr
    figures = json.loads(out.read_text(encoding="utf-8"))
    for name in ("import floor", "cold build", "no-op rebuild", "rebuild after a price edit"):
        assert figures[name]["seconds"] > 0 and figures[name]["peak_mib"] > 0, name
    assert figures["no-op rebuild"]["files written"] == 0
    assert figures["rebuild after a price edit"]["files written"] > 0
    assert any(name.startswith("synthetic") for name in figures) and "scaling" in figures
    assert "ratio to floor" in run.stdout

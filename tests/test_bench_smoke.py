"""The benchmark runs end to end (a smoke test: its figures are not asserted against targets)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
HUGO_UNAVAILABLE = 3
"""bench/run.py's exit status when Hugo cannot be installed into bench/.venv."""


def test_bench_quick_runs_and_reports_every_comparison(tmp_path):
    out = tmp_path / "bench.json"
    run = subprocess.run([sys.executable, str(ROOT / "bench" / "run.py"), "--quick", "--json", str(out)],
                         capture_output=True, text=True, timeout=300)
    if run.returncode == HUGO_UNAVAILABLE:
        pytest.skip(run.stderr.strip())
    assert run.returncode == 0, run.stderr
    figures = json.loads(out.read_text(encoding="utf-8"))
    for name in ("cold build ÷ Hugo cold", "no-op rebuild ÷ import floor", "price-edit rebuild ÷ Hugo cold"):
        comparison = figures[name]
        assert comparison["pairs"] == 2 and len(comparison["ratios"]) == 2, name
        assert comparison["ratio"] > 0 and comparison["peak_mib"] > 0, name
    cold = figures["cold build ÷ Hugo cold"]
    assert cold["pages"] == cold["vramsite twins"] == cold["Hugo twins"] > 0  # the same pages on both sides
    assert cold["tables"] > 0
    assert figures["no-op rebuild ÷ import floor"]["files written"] == 0
    assert figures["price-edit rebuild ÷ Hugo cold"]["files written"] > 0
    # one sentence added to one page: its HTML and its twin, not also prices the preview's runs had changed
    assert figures["content-edit rebuild ÷ Hugo cold"]["files written"] == 2
    for name in ("serve: price edit, the page asked for ÷ Hugo cold", "serve: price edit, the whole site ÷ Hugo cold"):
        preview = figures[name]
        assert preview["pairs"] == 2 and preview["ratio"] > 0 and "peak_mib" not in preview, name
    assert any(name.startswith("synthetic") for name in figures)
    assert figures["peak memory"]["largest process MiB"] > 0
    assert "targets (median of the pair-by-pair ratios)" in run.stdout

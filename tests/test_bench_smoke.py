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
    run = subprocess.run([sys.executable, str(ROOT / "bench" / "run.py"), "--quick", "--pairs", "1", "--json", str(out)],
                         capture_output=True, text=True, timeout=300)
    if run.returncode == HUGO_UNAVAILABLE:
        pytest.skip(run.stderr.strip())
    assert run.returncode == 0, run.stderr
    figures = json.loads(out.read_text(encoding="utf-8"))
    for name in ("cold build ÷ Hugo cold", "no-op rebuild ÷ import floor", "price-edit rebuild ÷ Hugo cold"):
        comparison = figures[name]
        assert comparison["pairs"] == 1 and len(comparison["ratios"]) == 1, name
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
        assert preview["pairs"] == 1 and preview["ratio"] > 0 and "peak_mib" not in preview, name
    assert any(name.startswith("synthetic") for name in figures)
    assert figures["peak memory"]["largest process MiB"] > 0
    assert "targets (median of the pair-by-pair ratios)" in run.stdout
    assert "against Hugo, a reference and not a gate" in run.stdout


def test_bench_scale_grows_the_catalogue_and_reports_each_figure_beside_its_target(tmp_path):
    out = tmp_path / "scale.json"
    run = subprocess.run([sys.executable, str(ROOT / "bench" / "scale.py"), "--sizes", "20", "--json", str(out)],
                         capture_output=True, text=True, timeout=300)
    assert run.returncode == 0, run.stderr
    (row,) = json.loads(out.read_text(encoding="utf-8"))
    assert row["models"] == 20 and row["cold build s"] > 0 and row["price edit s"] > 0 and row["peak MiB"] > 0
    assert row["files"] > 0 and row["MB"] > 0
    assert "| target at 2,000 | ≤ 60 | ≤ 20 |" in run.stdout


def test_the_grown_catalogue_is_the_sites_own_entries_and_copies_of_them():
    sys.path.insert(0, str(ROOT / "bench"))
    from scale import grown_catalogue

    import yaml

    text = (ROOT / "data" / "catalogue.yaml").read_text(encoding="utf-8")
    own = yaml.safe_load(text)["models"]
    grown = yaml.safe_load(grown_catalogue(text, 2 * len(own) + 1))["models"]
    assert grown[:len(own)] == own
    assert [entry["id"] for entry in grown[len(own):]] == [
        *(f"{entry['id']}-copy1" for entry in own), f"{own[0]['id']}-copy2"]
    assert {key: value for key, value in grown[len(own)].items() if key not in ("id", "name")} == {
        key: value for key, value in own[0].items() if key not in ("id", "name")}
    assert len({entry["id"] for entry in grown}) == len(grown)

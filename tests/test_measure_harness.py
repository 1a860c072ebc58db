"""`build.py measure`: a run on the CPU with a tiny model exercises every step and writes a file the site reads.

The harness needs the measure extra (torch, transformers, peft, psutil); its tests skip, saying so, without it.
The site build never imports torch, whether it is installed or not.
"""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from vramsite.calc.measured import measured_run
from vramsite.load import load_site
from vramsite.load.assemble import load_measurement
from vramsite.measure.cli import missing_extra

ROOT = Path(__file__).resolve().parent.parent
HAS_EXTRA = not missing_extra()
needs_extra = pytest.mark.skipif(not HAS_EXTRA, reason="the measure extra is not installed: pip install -e '.[measure]'")


def measure(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, str(ROOT / "build.py"), "measure", *args], capture_output=True, text=True,
                          timeout=600)


@pytest.fixture(scope="module")
def cpu_run(tmp_path_factory):
    out = tmp_path_factory.mktemp("measure") / "cpu-run.yaml"
    result = measure("--device", "cpu", "--gpu", "h200-sxm", "--out", str(out))
    assert result.returncode == 0, result.stderr
    return out, result.stdout


@needs_extra
def test_a_cpu_run_writes_a_file_the_loader_accepts(cpu_run, site_data):
    out, printed = cpu_run
    run = load_measurement(out, site_data)
    assert run.memory_from == "cpu" and run.device_name == "CPU" and run.total_mib is None
    assert dict(run.versions)["torch"].startswith("2.13.0")
    assert f"wrote {out}" in printed and "weights tiny-gqa: formula" in printed


@needs_extra
def test_tensor_bytes_match_the_formulas_exactly_on_the_cpu(cpu_run, site_data):
    run = load_measurement(cpu_run[0], site_data)
    served = run.inference[0]
    shape = served.shape
    assert served.weights_bytes == served.params * 2  # BF16
    assert served.kv_bytes == 2 * shape.layers * shape.kv_heads * shape.head_dim * served.context_tokens * 2
    compared = measured_run(run, site_data)
    assert compared.find("weights").difference.value == 0 and compared.find("kv_cache").difference.value == 0
    assert served.prefill_peak_bytes >= served.weights_bytes


@needs_extra
def test_lora_trains_rank_r_adapters_on_the_four_attention_projections(cpu_run, site_data):
    lora = load_measurement(cpu_run[0], site_data).lora
    shape = lora.shape
    kv_width = shape.kv_heads * shape.head_dim
    per_layer = lora.rank * ((shape.hidden_size + shape.hidden_size) * 2 + (shape.hidden_size + kv_width) * 2)
    assert lora.trainable == per_layer * shape.layers
    assert lora.base_params == load_measurement(cpu_run[0], site_data).full.params
    assert lora.peak_bytes > 0


@needs_extra
def test_every_step_is_recorded_with_its_settings(cpu_run, site_data):
    run = load_measurement(cpu_run[0], site_data)
    assert run.bandwidth.bytes > 0 and run.bandwidth.median_s > 0
    assert run.full.sequence_tokens == run.lora.sequence_tokens and run.full.peak_bytes > 0
    text = cpu_run[0].read_text(encoding="utf-8")
    assert "memory_from: cpu" in text and "resident memory" in text  # says how memory was taken


@needs_extra
def test_the_file_joins_a_site_as_a_measurement(cpu_run, site_copy):
    shutil.copy(cpu_run[0], site_copy / "data" / "measurements" / "cpu-run.yaml")
    assert [run.id for run in load_site(site_copy).measurements] == ["cpu-run", "h200-2026-11-30"]


def test_a_cpu_run_must_name_where_it_goes():
    result = measure("--device", "cpu", "--gpu", "h200-sxm")
    assert result.returncode == 1
    assert result.stderr.splitlines()[0] == ("--out: a CPU run measures no card: give --out, a path outside "
                                             "data/measurements/")


def test_an_unknown_card_is_refused_before_anything_runs(tmp_path):
    result = measure("--device", "cpu", "--gpu", "h900", "--out", str(tmp_path / "x.yaml"))
    assert result.returncode == 1 and "unknown card 'h900'" in result.stderr
    assert not (tmp_path / "x.yaml").exists()


def test_the_site_build_never_imports_torch():
    code = ("import sys, vramsite.cli, vramsite.publish.site, vramsite.calc.measured, vramsite.facts; "
            "sys.exit(1 if 'torch' in sys.modules or 'transformers' in sys.modules else 0)")
    assert subprocess.run([sys.executable, "-c", code], cwd=ROOT).returncode == 0


def test_without_the_extra_the_command_says_what_to_install():
    assert missing_extra(lambda name: None if name in ("torch", "peft") else object()) == ["torch", "peft"]
    assert missing_extra(lambda name: object()) == []

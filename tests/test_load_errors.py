"""Bad data gets one clear line per problem: file, line, field, message.

Each case breaks a line of the frozen seed 000 data (a copy), not of the live data/.
"""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from vramsite.errors import InputError
from vramsite.load import load_site

ROOT = Path(__file__).resolve().parent.parent


def edit(root: Path, name: str, old: str, new: str) -> int:
    """Replace ``old`` by ``new`` once in data/<name>; return the line where ``new`` starts."""
    path = root / "data" / name
    text = path.read_text(encoding="utf-8")
    assert text.count(old) == 1, f"{old!r} must occur once in {name}"
    before = text.index(old)
    path.write_text(text.replace(old, new), encoding="utf-8")
    return text[:before].count("\n") + 1


def problems_of(root: Path) -> list:
    with pytest.raises(InputError) as caught:
        load_site(root)
    return caught.value.problems


CASES = [
    # (id, file, old, new, field, words in the message)
    ("unknown key", "gpus.yaml", "    memory_type: HBM3e\n    bandwidth_gbps: 4800",
     "    memory_type: HBM3e\n    bandwith_gbps: 4800", "gpus[h200-sxm].bandwith_gbps", "unknown key",
     "    bandwith_gbps"),
    ("missing field", "gpus.yaml", "    bandwidth_gbps: 696\n", "", "gpus[a40].bandwidth_gbps", "missing required field",
     "  - id: a40\n"),
    ("wrong type", "models.yaml", "    layers: 80\n", "    layers: eighty\n", "models[70B].layers", "expected a whole number"),
    ("string for a number", "prices.yaml", "{gpu: a40, usd: 240}", "{gpu: a40, usd: '240'}",
     "prices[a40].usd", "expected a number"),
    ("zero memory", "gpus.yaml", "    memory_gb: 192\n", "    memory_gb: 0\n", "gpus[mi300x].memory_gb", "at least 1 GB, got 0"),
    ("negative price", "prices.yaml", "{gpu: l4, usd: 250}", "{gpu: l4, usd: -250}", "prices[l4].usd", "at least 1 USD per card-month, got -250"),
    ("absurd size", "models.yaml", "    params_billion: 405\n", "    params_billion: 405000000\n",
     "models[405B].params_billion", "at most"),
    ("duplicate id", "gpus.yaml", "  - id: rtx-a5000\n", "  - id: rtx-3090\n", "gpus[rtx-3090].id", "duplicate id"),
    ("price for unknown card", "prices.yaml", "{gpu: a40, usd: 240}", "{gpu: a41, usd: 240}",
     "prices[a41].gpu", "unknown card"),
    ("unknown precision", "sizing.yaml", "kind: inference, precision: fp8}",
     "kind: inference, precision: fp6}", "methods[infer-fp8].precision", "unknown precision"),
    ("unknown method column", "sizing.yaml", "columns: [infer-bf16,", "columns: [infer-bf32,",
     "lookup.columns[0]", "unknown method"),
    ("unknown region", "gpus.yaml", "{id: DFW-1, stock: 8}", "{id: DFW-9, stock: 8}",
     "gpus[mi300x].regions[DFW-9].id", "unknown region"),
]


def line_of(root: Path, name: str, text: str) -> int:
    content = (root / "data" / name).read_text(encoding="utf-8")
    return content[: content.index(text)].count("\n") + 1


@pytest.mark.parametrize("case", CASES, ids=[case[0] for case in CASES])
def test_problem_names_file_line_and_field(seed_000_copy, case):
    _, name, old, new, field, words, *at = case
    line = edit(seed_000_copy, name, old, new)
    if at:  # where the edit spans lines, or removes a field (reported at its entry)
        line = line_of(seed_000_copy, name, at[0])
    found = problems_of(seed_000_copy)
    matching = [p for p in found if p.file == f"data/{name}" and p.field == field]
    assert matching, f"no problem for {field}; got {[str(p) for p in found]}"
    problem = matching[0]
    assert words in problem.message
    assert problem.line == line, str(problem)
    assert str(problem).startswith(f"data/{name}:{line}: {field}: ")


def test_card_without_price(seed_000_copy):
    edit(seed_000_copy, "prices.yaml", "  - {gpu: l4, usd: 250}\n", "")
    found = problems_of(seed_000_copy)
    assert any(p.file == "data/prices.yaml" and p.field == "prices[l4]" and "has no price" in p.message
               and "gpus.yaml line" in p.message for p in found)


def test_every_problem_of_a_run_is_reported_at_once(seed_000_copy):
    edit(seed_000_copy, "gpus.yaml", "    memory_gb: 192\n", "    memory_gb: -1\n")
    edit(seed_000_copy, "prices.yaml", "{gpu: l4, usd: 250}", "{gpu: l4, usd: 0}")
    edit(seed_000_copy, "models.yaml", "    layers: 80\n", "    layers: 80\n    colour: red\n")
    fields = {p.field for p in problems_of(seed_000_copy)}
    assert {"gpus[mi300x].memory_gb", "prices[l4].usd", "models[70B].colour"} <= fields


def test_missing_kv_shape_is_reported_where_the_formula_needs_it(seed_000_copy):
    edit(seed_000_copy, "models.yaml", "    layers: 126\n", "")
    found = problems_of(seed_000_copy)
    assert any(p.field == "models[405B].layers" and "KV cache" in p.message for p in found)


def test_build_exits_non_zero_with_the_messages(seed_000_copy):
    edit(seed_000_copy, "gpus.yaml", "    memory_gb: 192\n", "    memory_gb: 0\n")
    run = subprocess.run([sys.executable, str(ROOT / "build.py"), "--site", str(seed_000_copy)],
                         capture_output=True, text=True)
    assert run.returncode == 1
    assert "data/gpus.yaml:" in run.stderr and "gpus[mi300x].memory_gb: must be at least 1 GB" in run.stderr


SPEED_CASES = [
    # (id, file, old, new, field, words in the message): the live data, whose speeds these feed
    ("a matmul rate above its peak", "throughput.yaml", "tflops: 271.2, of: 312", "tflops: 371.2, of: 312",
     "matmul.measured[0].tflops", "more than the peak"),
    ("a run that is not there", "throughput.yaml", "measurement: h200-2026-11-30", "measurement: h100-2026-01-01",
     "bandwidth.measurement", "unknown measurement 'h100-2026-01-01'"),
    ("a sequence limit that is no setting", "engines.yaml", "sequence_limit: max_num_seqs", "sequence_limit: max_seqs",
     "engines[vllm].sequence_limit", "no setting 'max_seqs'"),
    ("an FP8 card without its FP8 rate", "gpus.yaml", "dense_tflops: {bf16: 362, fp8: 733,", "dense_tflops: {bf16: 362,",
     "gpus[l40s].dense_tflops", "no fp8 rate, though the card's features list fp8"),
    ("a rate for a format the card lacks", "gpus.yaml", "dense_tflops: {bf16: 312, source",
     "dense_tflops: {bf16: 312, fp8: 624, source", "gpus[a100-sxm].dense_tflops.fp8", "do not list fp8"),
    ("a mesh's one link faster than the card's whole", "gpus.yaml", "gbps: 448, all_to_all_cards: 8, per_peer_gbps: 64",
     "gbps: 448, all_to_all_cards: 8, per_peer_gbps: 640", "gpus[mi300x].interconnect.per_peer_gbps",
     "640 GB/s to one peer exceeds the card's 448 GB/s"),
]


@pytest.mark.parametrize("case", SPEED_CASES, ids=[case[0] for case in SPEED_CASES])
def test_speed_data_problems_name_file_line_and_field(tmp_path, case):
    _, name, old, new, field, words = case
    shutil.copytree(ROOT / "data", tmp_path / "data")
    line = edit(tmp_path, name, old, new)
    found = [problem for problem in problems_of(tmp_path) if problem.field == field]
    assert found, problems_of(tmp_path)
    assert found[0].file == f"data/{name}" and found[0].line == line and words in found[0].message

"""The corpus of published engine logs (data/engine_logs.yaml) checks itself.

Every case must be verifiable: a github.com thread, a known engine and weight
format, at least one log line quoted, and every figure read from those lines
(a number that occurs in them, or for KV tokens counted in blocks, the blocks
times the block size). The corpus as a whole must hold enough cases to test
against, a held-back set, both vLLM and llama.cpp, failures to start and
tensor parallelism. ``corpus_problems`` lists what is wrong; the corpus must
have nothing listed, and each deliberately broken copy must have its fault
listed, so these checks can fail.
"""

from __future__ import annotations

import copy
import re
from decimal import Decimal, InvalidOperation
from pathlib import Path
from typing import Any, Callable

import pytest
import yaml

ROOT = Path(__file__).resolve().parent.parent
CORPUS = ROOT / "data" / "engine_logs.yaml"

ENGINES = frozenset({"vllm", "sglang", "trtllm", "llama.cpp"})
WEIGHT_FORMATS = frozenset({
    "bf16", "fp16", "fp8", "fp8-block", "int8-w8a8", "gptq-int4", "awq-int4", "bnb-nf4",
    "gguf-q8_0", "gguf-q6_k", "gguf-q5_k_m", "gguf-q4_k_m", "gguf-q4_0", "mxfp4", "nvfp4",
})
CASE_KEYS = frozenset({
    "id", "source", "engine", "engine_version", "model", "hf_repo", "weights", "gpu",
    "gpu_memory_gib", "cards", "settings", "logged", "figures", "held_back",
})
OPTIONAL_CASE_KEYS = frozenset({"same_shape", "card"})
FIGURE_KEYS = frozenset({"weights_gib", "kv_cache_gib", "kv_tokens", "started", "failure"})
LLAMA_CPP_FIGURE_KEYS = frozenset({"model_buffer_mib", "kv_cache_mib", "compute_buffer_mib"})
NUMERIC_FIGURES = ("weights_gib", "kv_cache_gib", "model_buffer_mib", "kv_cache_mib", "compute_buffer_mib")

MIN_TUNING_CASES = 30
MIN_HELD_BACK = 6
MIN_FAILURES = 4
MIN_MULTI_CARD = 3
DEFAULT_BLOCK_SIZE = 16  # vLLM V0's block size when block_size is not set

CASE_ID = re.compile(r"[a-z0-9][a-z0-9._-]*")
GITHUB_THREAD = re.compile(r"https://github\.com/[\w.-]+/[\w.-]+/(?:issues|pull|discussions)/\d+(?:#[\w-]+)?")
GPU_ID_SHAPE = re.compile(r"[a-z0-9]+(?:-[a-z0-9]+)*")
NUMBER = re.compile(r"-?\d[\d,]*(?:\.\d+)?")
BLOCK_COUNT = re.compile(r"(?:GPU|CUDA|cuda) blocks: \**(\d+)")


def known_ids(path: Path, key: str) -> frozenset[str]:
    """The ids of a data file's entries (data/catalogue.yaml's models, data/gpus.yaml's gpus)."""
    data = yaml.safe_load(path.read_text(encoding="utf-8"))
    return frozenset(entry["id"] for entry in data[key])


def numbers_in(lines: list[str]) -> set[Decimal]:
    """Every number written in the lines, thousands separators dropped."""
    found = set()
    for line in lines:
        for text in NUMBER.findall(line):
            try:
                found.add(Decimal(text.replace(",", "")))
            except InvalidOperation:
                continue
    return found


def as_decimal(value: Any) -> Decimal | None:
    """A YAML number as the Decimal of its written form; None for anything else."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return None
    return Decimal(str(value))


def block_token_counts(case: dict) -> set[Decimal]:
    """Tokens the logged block counts hold: blocks x the case's block size (16 unless set)."""
    block_size = (case.get("settings") or {}).get("block_size") or DEFAULT_BLOCK_SIZE
    counts = set()
    for line in case["logged"]:
        counts.update(Decimal(blocks) * block_size for blocks in BLOCK_COUNT.findall(line))
    return counts


def shape_problems(case: dict, where: str, catalogue: frozenset[str], gpus: frozenset[str]) -> list[str]:
    """Keys, ids and vocabularies of one case."""
    problems = []
    missing, extra = CASE_KEYS - case.keys(), case.keys() - CASE_KEYS - OPTIONAL_CASE_KEYS
    if missing:
        problems.append(f"{where}: missing keys {sorted(missing)}")
    if extra:
        problems.append(f"{where}: unknown keys {sorted(extra)}")
    if not CASE_ID.fullmatch(str(case.get("id", ""))):
        problems.append(f"{where}: id must be lower case letters, digits, '.', '-' or '_'")
    if not GITHUB_THREAD.fullmatch(str(case.get("source", ""))):
        problems.append(f"{where}: source is not a github.com issue, pull request or discussion URL")
    if case.get("engine") not in ENGINES:
        problems.append(f"{where}: engine {case.get('engine')!r} is not one of {sorted(ENGINES)}")
    if case.get("weights") not in WEIGHT_FORMATS:
        problems.append(f"{where}: weights {case.get('weights')!r} is not a known format id")
    if case.get("model") is not None and case["model"] not in catalogue:
        problems.append(f"{where}: model {case['model']!r} is not in data/catalogue.yaml")
    gpu = case.get("gpu")
    if isinstance(gpu, str) and GPU_ID_SHAPE.fullmatch(gpu) and gpu not in gpus:
        problems.append(f"{where}: gpu {gpu!r} is written as an id but is not in data/gpus.yaml")
    cards = case.get("cards")
    if isinstance(cards, bool) or not isinstance(cards, int) or cards < 1:
        problems.append(f"{where}: cards must be a whole number of at least 1")
    if not isinstance(case.get("settings"), dict):
        problems.append(f"{where}: settings must be a mapping")
    if not isinstance(case.get("held_back"), bool):
        problems.append(f"{where}: held_back must be true or false")
    return problems


def figure_problems(case: dict, where: str) -> list[str]:
    """Each figure read from the logged lines, and the failure where the engine did not start."""
    lines = case.get("logged")
    if not isinstance(lines, list) or not lines or not all(isinstance(line, str) and line for line in lines):
        return [f"{where}: logged must list at least one non-empty line"]
    figures = case.get("figures")
    if not isinstance(figures, dict):
        return [f"{where}: figures must be a mapping"]
    problems = []
    missing = FIGURE_KEYS - figures.keys()
    extra = figures.keys() - FIGURE_KEYS - LLAMA_CPP_FIGURE_KEYS
    if missing:
        problems.append(f"{where}: figures lack {sorted(missing)}")
    if extra:
        problems.append(f"{where}: figures has unknown keys {sorted(extra)}")
    written = numbers_in(lines)
    read = {name: figures.get(name) for name in NUMERIC_FIGURES} | {"gpu_memory_gib": case.get("gpu_memory_gib")}
    for name, value in read.items():
        if value is not None and as_decimal(value) not in written:
            problems.append(f"{where}: {name} {value!r} does not occur in the logged lines")
    tokens = figures.get("kv_tokens")
    if tokens is not None and as_decimal(tokens) not in written | block_token_counts(case):
        problems.append(f"{where}: kv_tokens {tokens!r} is neither in the logged lines nor blocks x block size")
    problems.extend(start_problems(figures, lines, where))
    return problems


def start_problems(figures: dict, lines: list[str], where: str) -> list[str]:
    """started is true, false or unknown; a failure is a quoted line's text, and only where it did not start."""
    started, failure = figures.get("started"), figures.get("failure")
    if started not in (True, False, None):
        return [f"{where}: started must be true, false or null"]
    if started is False and not failure:
        return [f"{where}: started is false but no failure line is given"]
    if failure is not None and started is not False:
        return [f"{where}: a failure is given but started is not false"]
    if failure is not None and not any(failure in line for line in lines):
        return [f"{where}: failure is not the text of a logged line"]
    return []


def coverage_problems(cases: list[dict]) -> list[str]:
    """What the corpus as a whole must hold to test against."""
    held_back = [case for case in cases if case.get("held_back") is True]
    tuning = [case for case in cases if case.get("held_back") is False]
    engines = {case.get("engine") for case in cases}
    failures = [case for case in cases if (case.get("figures") or {}).get("started") is False]
    multi_card = [case for case in cases if isinstance(case.get("cards"), int) and case["cards"] > 1]
    problems = []
    if len(tuning) < MIN_TUNING_CASES:
        problems.append(f"corpus: {len(tuning)} cases to test against, at least {MIN_TUNING_CASES} wanted")
    if len(held_back) < MIN_HELD_BACK:
        problems.append(f"corpus: {len(held_back)} held back cases, at least {MIN_HELD_BACK} wanted")
    if len({case.get("engine") for case in held_back}) < 2:
        problems.append("corpus: the held back cases must span at least two engines")
    for engine in ("vllm", "llama.cpp"):
        if engine not in engines:
            problems.append(f"corpus: no {engine} case")
    if len(failures) < MIN_FAILURES:
        problems.append(f"corpus: {len(failures)} failures to start, at least {MIN_FAILURES} wanted")
    if len(multi_card) < MIN_MULTI_CARD:
        problems.append(f"corpus: {len(multi_card)} cases with cards > 1, at least {MIN_MULTI_CARD} wanted")
    return problems


def corpus_problems(corpus: Any, catalogue: frozenset[str], gpus: frozenset[str]) -> list[str]:
    """Everything wrong with a corpus: one line per fault, naming the case."""
    cases = corpus.get("cases") if isinstance(corpus, dict) else None
    if not isinstance(cases, list) or not cases:
        return ["corpus: no cases"]
    problems = []
    seen: set[str] = set()
    for number, case in enumerate(cases, 1):
        if not isinstance(case, dict):
            problems.append(f"case {number}: not a mapping")
            continue
        where = f"case {case.get('id', number)}"
        if case.get("id") in seen:
            problems.append(f"{where}: duplicate id")
        seen.add(case.get("id"))
        problems.extend(shape_problems(case, where, catalogue, gpus))
        problems.extend(figure_problems(case, where))
    return problems + coverage_problems([case for case in cases if isinstance(case, dict)])


@pytest.fixture(scope="module")
def corpus() -> dict:
    return yaml.safe_load(CORPUS.read_text(encoding="utf-8"))


@pytest.fixture(scope="module")
def vocabularies() -> tuple[frozenset[str], frozenset[str]]:
    return known_ids(ROOT / "data" / "catalogue.yaml", "models"), known_ids(ROOT / "data" / "gpus.yaml", "gpus")


def test_the_corpus_has_no_problems(corpus, vocabularies):
    assert corpus_problems(corpus, *vocabularies) == []


def first(cases: list[dict], wanted: Callable[[dict], bool]) -> dict:
    return next(case for case in cases if wanted(case))


def counted_in_blocks(case: dict) -> bool:
    """kv_tokens is the product of a logged block count, and a large one (a small number could occur elsewhere)."""
    tokens = case["figures"]["kv_tokens"]
    return bool(tokens) and tokens > 1000 and tokens in block_token_counts(case)


def break_weights_figure(cases):
    case = first(cases, lambda case: case["figures"]["weights_gib"] is not None)
    case["figures"]["weights_gib"] += 0.01


def break_block_tokens(cases):
    first(cases, counted_in_blocks)["figures"]["kv_tokens"] += 7


def break_llama_cpp_figure(cases):
    case = first(cases, lambda case: case["figures"].get("kv_cache_mib") is not None)
    case["figures"]["kv_cache_mib"] *= 2


def hide_failure(cases):
    first(cases, lambda case: case["figures"]["started"] is False)["figures"]["failure"] = None


def invent_failure(cases):
    first(cases, lambda case: case["figures"]["started"] is False)["figures"]["failure"] = "Out of luck."


def start_everything(cases):
    for case in cases:
        case["figures"].update(started=True, failure=None)


BROKEN_COPIES = {
    "duplicate id": (lambda cases: cases[1].update(id=cases[0]["id"]), "duplicate id"),
    "upper-case id": (lambda cases: cases[0].update(id="vLLM-Case"), "id must be lower case"),
    "source off github": (lambda cases: cases[0].update(source="https://example.com/issue/1"), "source is not"),
    "source a repository page": (lambda cases: cases[0].update(source="https://github.com/vllm-project/vllm"),
                                 "source is not"),
    "unknown engine": (lambda cases: cases[0].update(engine="tgi"), "engine 'tgi'"),
    "unknown weights": (lambda cases: cases[0].update(weights="int3"), "weights 'int3'"),
    "unknown model": (lambda cases: cases[0].update(model="llama-9b"), "model 'llama-9b'"),
    "gpu id typo": (lambda cases: cases[0].update(gpu="rtx-3909"), "gpu 'rtx-3909'"),
    "no cards": (lambda cases: cases[0].update(cards=0), "cards must be"),
    "missing key": (lambda cases: cases[0].pop("held_back"), "missing keys ['held_back']"),
    "nothing logged": (lambda cases: cases[0].update(logged=[]), "logged must list"),
    "weights not in the lines": (break_weights_figure, "weights_gib"),
    "kv tokens not blocks x 16": (break_block_tokens, "kv_tokens"),
    "llama.cpp KV not in the lines": (break_llama_cpp_figure, "kv_cache_mib"),
    "failure without its line": (hide_failure, "no failure line"),
    "failure not quoted": (invent_failure, "failure is not the text"),
    "too few held back": (lambda cases: [case.update(held_back=False) for case in cases], "held back cases"),
    "too few to test": (lambda cases: [case.update(held_back=True) for case in cases], "cases to test against"),
    "no llama.cpp": (lambda cases: cases.__setitem__(slice(None), [c for c in cases if c["engine"] != "llama.cpp"]),
                     "no llama.cpp case"),
    "no failures": (start_everything, "failures to start"),
    "one card each": (lambda cases: [case.update(cards=1) for case in cases], "cards > 1"),
}


@pytest.mark.parametrize("fault", sorted(BROKEN_COPIES))
def test_a_broken_copy_is_caught(corpus, vocabularies, fault):
    broken = copy.deepcopy(corpus)
    breaking, expected = BROKEN_COPIES[fault]
    breaking(broken["cases"])
    problems = corpus_problems(broken, *vocabularies)
    assert any(expected in problem for problem in problems), problems

"""Serving engines: the KV budget each leaves per card (calc/engines.py), and its data (data/engines.yaml).

Units of each term first, then the corpus of published engine logs
(data/engine_logs.yaml, compared by vramsite/calc/engine_logs.py): given the weights a log reports, the budget
within 10 % of the KV cache it logs, and every logged failure to start
reproduced as not starting.
"""

from __future__ import annotations

import shutil
from dataclasses import replace
from decimal import Decimal
from pathlib import Path

import pytest
import yaml

from cli_support import ROOT
from vramsite.calc import attention, engine_logs, engines
from vramsite.calc.figure import given
from vramsite.errors import InputError, UnknownId
from vramsite.load import load_site
from vramsite.units import BYTES_PER_GIB

TOLERANCE = Decimal("0.10")
H100_GIB = Decimal(81559) / 1024  # nvidia-smi memory.total of an H100 SXM, as data/gpus.yaml cites it


@pytest.fixture(scope="module")
def data():
    return load_site(ROOT)


@pytest.fixture(scope="module")
def book(data):
    return data.engines


def gib(value) -> object:
    return given(Decimal(str(value)), "GiB")


def budget(data, engine_id: str, memory, weights, model_id: str, cards: int = 1, context: int = 8192,
           sequences: int = 1, kv: str = "bf16", **settings):
    return engines.engine_budget(data.engines.engine(engine_id), gib(memory), gib(weights),
                                 data.catalogue_model(model_id), cards, context, sequences,
                                 data.engines.kv_cache_format(kv), settings)


# -- the data ------------------------------------------------------------------------------------------


def test_every_engine_and_format_names_its_source(book):
    for kv_format in book.kv_cache_formats:
        assert len(kv_format.source) > 20, kv_format.id
    for engine in book.engines:
        for item in engine.settings + engine.terms:
            assert len(item.source) > 20, (engine.id, item.name)


def test_kv_formats_carry_their_block_scales(book):
    """ggml's blocks of 32: Q8_0 is 32 bytes and one FP16 scale, Q4_0 16 bytes and one FP16 scale."""
    bits = {kv_format.id: kv_format.bits for kv_format in book.kv_cache_formats}
    assert bits == {"bf16": 16, "fp8": 8, "q8_0": Decimal("8.5"), "q4_0": Decimal("4.5")}
    assert engines.element_bytes(book.kv_cache_format("q8_0")).value == Decimal(34) / 32
    assert engines.element_bytes(book.kv_cache_format("q4_0")).value == Decimal(18) / 32


def test_unknown_engine_names_the_known_ones(book):
    with pytest.raises(UnknownId) as raised:
        engines.engine_by_id(book, "tgi")
    assert "tgi" in str(raised.value)
    for known in ("vllm", "sglang", "trtllm", "llama.cpp"):
        assert known in str(raised.value)


def test_a_kv_format_the_engine_cannot_store_is_named_with_those_it_can(data, book):
    with pytest.raises(UnknownId) as raised:
        budget(data, "vllm", 80, 15, "llama-3.1-8b", kv="q4_0")
    assert "q4_0" in str(raised.value) and "bf16" in str(raised.value) and "fp8" in str(raised.value)
    with pytest.raises(UnknownId):
        engines.kv_format_by_id(book, book.engine("llama.cpp"), "fp8")


def test_an_unknown_setting_is_refused(data):
    with pytest.raises(UnknownId) as raised:
        budget(data, "vllm", 80, 15, "llama-3.1-8b", gpu_mem_util=Decimal("0.8"))
    assert "gpu_memory_utilization" in str(raised.value)


def _data_copy(tmp_path: Path, old: str, new: str, name: str = "engines") -> Path:
    shutil.copytree(ROOT / "data", tmp_path / "data")
    path = tmp_path / "data" / f"{name}.yaml"
    text = path.read_text(encoding="utf-8")
    assert old in text
    path.write_text(text.replace(old, new, 1), encoding="utf-8")
    return tmp_path


@pytest.mark.parametrize("old, new, field, words", [
    ("default_engine: vllm", "default_engine: tgi", "default_engine", "unknown engine 'tgi'"),
    ("kv_cache_formats: {bf16: auto, fp8: fp8}", "kv_cache_formats: {bf16: auto, fp6: fp6}",
     "fp6", "unknown KV cache format 'fp6'"),
    ("budget: profiled_share", "budget: guesswork", "budget", "guesswork"),
    ("      sampler_bytes_per_logit:\n        value: 40\n", "      sampler_bytes_per_logit_typo:\n        value: 40\n",
     "terms", "sampler_bytes_per_logit"),
    ("      ubatch:\n        default: 512\n", "      ubatch:\n", "ubatch", "default"),
    ("  - id: q4_0\n    label: Q4_0\n    bits: 4.5\n", "  - id: q4_0\n    label: Q4_0\n    bits: 4.5\n    extra: 1\n",
     "extra", "unknown key 'extra'"),
    ("    stacks:\n      ids: [cuda]\n", "    stacks:\n      ids: [cuda, metal]\n", "stacks", "metal"),
])
def test_a_broken_engines_file_is_refused_by_file_line_and_field(tmp_path, old, new, field, words):
    root = _data_copy(tmp_path, old, new)
    with pytest.raises(InputError) as raised:
        load_site(root)
    problems = [problem for problem in raised.value.problems if problem.file == "data/engines.yaml"]
    assert problems, raised.value.problems
    problem = problems[0]
    assert problem.line is not None and field in problem.field and words in problem.message


# -- vLLM ----------------------------------------------------------------------------------------------


def test_vllm_takes_its_share_less_weights_activation_and_overhead(data):
    result = budget(data, "vllm", 80, 15, "llama-3.1-8b")
    activation, overhead = result.taken
    assert result.kv_cache_gib.value == 80 * Decimal("0.9") - 15 - activation.value - overhead.value
    assert overhead.value == data.engines.engine("vllm").term("runtime_overhead_gib").value


def test_vllm_budget_moves_with_utilization_by_the_share_of_the_card(data):
    low = budget(data, "vllm", 80, 15, "llama-3.1-8b", gpu_memory_utilization=Decimal("0.85"))
    high = budget(data, "vllm", 80, 15, "llama-3.1-8b", gpu_memory_utilization=Decimal("0.95"))
    assert high.kv_cache_gib.value - low.kv_cache_gib.value == Decimal("0.10") * 80


def test_vllm_activation_peak_is_the_larger_of_forward_and_sampler(data):
    """The sampler's rows × vocabulary set the peak at the defaults; a long batched prefill outgrows it."""
    default = budget(data, "vllm", 80, 15, "llama-3.1-8b").taken[0]
    rows = budget(data, "vllm", 80, 15, "llama-3.1-8b", max_num_seqs=512).taken[0]
    long_prefill = budget(data, "vllm", 80, 15, "llama-3.1-8b", max_num_batched_tokens=65536).taken[0]
    sampler_per_row = 128256 * 40 / Decimal(BYTES_PER_GIB)
    assert default.value == 1024 * sampler_per_row  # an 80 GiB card: max_num_seqs defaults to 1024
    assert rows.value == 512 * sampler_per_row
    assert long_prefill.value > default.value
    assert long_prefill.formula.terms[0].label == "forward activations"


def test_vllm_defaults_follow_the_card_memory(data):
    small = dict(budget(data, "vllm", 24, 4, "llama-3.1-8b").settings)
    large = dict(budget(data, "vllm", 80, 15, "llama-3.1-8b").settings)
    assert (small["max_num_batched_tokens"], small["max_num_seqs"]) == (2048, 256)
    assert (large["max_num_batched_tokens"], large["max_num_seqs"]) == (8192, 1024)


def test_vllm_under_tensor_parallelism_counts_the_overhead_on_every_card(data):
    one = budget(data, "vllm", 80, 15, "llama-3.1-8b")
    two = budget(data, "vllm", 80, Decimal("7.5"), "llama-3.1-8b", cards=2)
    book = data.engines.engine("vllm")
    assert two.taken[1].value == book.term("runtime_overhead_gib").value + book.term(
        "tensor_parallel_overhead_gib").value
    assert one.taken[1].value == book.term("runtime_overhead_gib").value
    # KV heads split across the two cards: each token costs half as much per card
    per_token_one = one.kv_cache_gib.value * BYTES_PER_GIB / one.kv_tokens.value
    per_token_two = two.kv_cache_gib.value * BYTES_PER_GIB / two.kv_tokens.value
    assert round(per_token_one / per_token_two, 2) == 2


def test_vllm_refuses_to_start_without_room(data):
    result = budget(data, "vllm", 24, 23, "llama-3.1-8b")
    assert result.kv_cache_gib.value < 0
    assert (result.starts, result.fits, result.kv_tokens.value) == (False, False, 0)
    assert result.reason.startswith("ValueError: No available memory for the cache blocks.")


def test_vllm_refuses_to_start_when_the_cache_holds_less_than_one_longest_sequence(data):
    result = budget(data, "vllm", 24, 15, "llama-3.1-8b", context=131072)
    assert 0 < result.kv_tokens.value < 131072
    assert not result.starts
    assert "The model's max seq len (131072) is larger than the maximum number of tokens" in result.reason
    assert f"({result.kv_tokens.value})" in result.reason


def test_vllm_starts_but_does_not_fit_more_sequences_than_it_holds(data):
    result = budget(data, "vllm", 24, 15, "llama-3.1-8b", context=8192, sequences=64)
    assert result.starts and not result.fits
    assert result.headroom_gib.value < 0
    assert "64 sequences of 8192 tokens" in result.reason


def test_vllm_fp8_cache_holds_twice_the_tokens(data):
    bf16 = budget(data, "vllm", 80, 15, "llama-3.1-8b")
    fp8 = budget(data, "vllm", 80, 15, "llama-3.1-8b", kv="fp8")
    assert fp8.kv_cache_gib.value == bf16.kv_cache_gib.value
    assert abs(fp8.kv_tokens.value - 2 * bf16.kv_tokens.value) <= 1


def test_latent_cache_is_kept_whole_on_every_card(data):
    """DeepSeek-V3's latent is shared by all heads: a card holds as many bytes per token on 8 cards as on 1."""
    model = data.catalogue_model("deepseek-v3")
    b = engines.element_bytes(data.engines.kv_cache_format("bf16"))
    layers = attention.model_layers(model)
    one = attention.kv_bytes_per_token(attention.on_one_card(layers, 1), b)
    eight = attention.kv_bytes_per_token(attention.on_one_card(layers, 8), b)
    assert one.value == eight.value


# -- SGLang, TensorRT-LLM ------------------------------------------------------------------------------


def test_sglang_derives_mem_fraction_static_from_the_card(data):
    """H100 (81,559 MiB): 512 + 8192 × 1.5 + 256 × 2 + 1 × 128 = 13,440 MiB reserved → 0.835;
    RTX 4090 (24,564 MiB): 512 + 2048 × 1.5 + 24 × 2 + 128 = 3,760 MiB → 0.847."""
    h100 = budget(data, "sglang", H100_GIB, 15, "llama-3.1-8b")
    rtx = budget(data, "sglang", Decimal(24564) / 1024, 5, "llama-3.1-8b")
    assert engines._static_fraction(_request(data, "sglang", H100_GIB)).value == Decimal("0.835")
    assert engines._static_fraction(_request(data, "sglang", Decimal(24564) / 1024)).value == Decimal("0.847")
    overhead = data.engines.engine("sglang").term("runtime_overhead_gib").value
    assert h100.kv_cache_gib.value == (H100_GIB - overhead) * Decimal("0.835") - 15
    assert rtx.starts


def test_sglang_takes_a_set_fraction_as_given(data):
    result = budget(data, "sglang", 80, 15, "llama-3.1-8b", mem_fraction_static=Decimal("0.9"))
    overhead = data.engines.engine("sglang").term("runtime_overhead_gib").value
    assert result.kv_cache_gib.value == (80 - overhead) * Decimal("0.9") - 15


def test_trtllm_takes_its_fraction_of_what_is_free(data):
    result = budget(data, "trtllm", 80, 15, "llama-3.1-8b")
    overhead, activation = result.taken
    assert result.kv_cache_gib.value == (80 - overhead.value - 15 - activation.value) * Decimal("0.9")


def test_trtllm_takes_the_smaller_of_its_fraction_and_max_tokens(data):
    fraction = budget(data, "trtllm", 80, 15, "llama-3.1-8b")
    capped = budget(data, "trtllm", 80, 15, "llama-3.1-8b", max_tokens=100000)
    assert capped.kv_cache_gib.value == Decimal(100000 * 131072) / BYTES_PER_GIB < fraction.kv_cache_gib.value
    assert budget(data, "trtllm", 80, 15, "llama-3.1-8b", max_tokens=10 ** 7).kv_cache_gib.value == \
        fraction.kv_cache_gib.value


def _request(data, engine_id: str, memory) -> engines.Request:
    return engines.Request(data.engines.engine(engine_id), {}, gib(memory), gib(15),
                           data.catalogue_model("llama-3.1-8b"), 1, 8192, 1, data.engines.kv_cache_format("bf16"))


# -- llama.cpp -----------------------------------------------------------------------------------------


def test_llama_cpp_allocates_the_cache_the_request_asks_for(data):
    """Llama 3.1 8B keeps 32 layers × 2 × 8 KV heads × 128 = 65,536 elements per token: 8192 tokens at
    f16 are 1 GiB exactly, at q8_0 17/32 of it, at q4_0 9/32."""
    f16 = budget(data, "llama.cpp", 24, Decimal("4.58"), "llama-3.1-8b")
    q8 = budget(data, "llama.cpp", 24, Decimal("4.58"), "llama-3.1-8b", kv="q8_0")
    q4 = budget(data, "llama.cpp", 24, Decimal("4.58"), "llama-3.1-8b", kv="q4_0")
    assert f16.kv_cache_gib.value == 1
    assert q8.kv_cache_gib.value == Decimal(17) / 32
    assert q4.kv_cache_gib.value == Decimal(9) / 32
    assert f16.kv_tokens.value == 8192
    four = budget(data, "llama.cpp", 24, Decimal("4.58"), "llama-3.1-8b", sequences=4)
    assert four.kv_cache_gib.value == 4 and four.kv_tokens.value == 4 * 8192


def test_llama_cpp_splits_layers_so_each_card_keeps_a_share_of_a_latent_cache(data):
    """llama.cpp splits layers across cards (split_mode layer): DeepSeek-V3's latent is not copied onto
    every card as under tensor parallelism, each card keeps its layers' share."""
    one = budget(data, "llama.cpp", 1000, 100, "deepseek-v3", cards=1)
    eight = budget(data, "llama.cpp", 1000, 100, "deepseek-v3", cards=8)
    assert eight.kv_cache_gib.value * 8 == one.kv_cache_gib.value


def test_llama_cpp_compute_buffer_grows_with_ubatch_and_without_flash_attention_with_context(data):
    """With flash attention the logits [vocab + hidden, ubatch] in F32 set it: (128,256 + 4,096) × 512 × 4 B
    = 258.5 MiB for Llama 3 8B; without, the scores [context, ubatch, heads] outgrow them."""
    default = budget(data, "llama.cpp", 24, Decimal("4.58"), "llama-3.1-8b").taken[0]
    assert default.value * 1024 == Decimal("258.5")
    doubled = budget(data, "llama.cpp", 24, Decimal("4.58"), "llama-3.1-8b", ubatch=1024).taken[0]
    assert doubled.value == 2 * default.value
    short = budget(data, "llama.cpp", 24, Decimal("4.58"), "llama-3.1-8b", flash_attention=0, context=8192).taken[0]
    long = budget(data, "llama.cpp", 24, Decimal("4.58"), "llama-3.1-8b", flash_attention=0, context=32768).taken[0]
    assert short.value * 1024 == 8192 * 512 * 32 * 4 / Decimal(2 ** 20)
    assert long.value == 4 * short.value


def test_llama_cpp_keeps_its_fit_margin_free(data):
    """It fits where weights, cache, compute buffer and overhead leave 1 GiB; the margin is a setting."""
    tight = budget(data, "llama.cpp", 24, Decimal("21.5"), "llama-3.1-8b")
    need = tight.weights_gib.value + tight.kv_cache_gib.value + sum(term.value for term in tight.taken)
    assert tight.headroom_gib.value == 24 - need - 1
    assert 0 < 24 - need < 1 and not tight.fits and not tight.starts
    assert "cudaMalloc failed: out of memory" in tight.reason
    assert budget(data, "llama.cpp", 24, Decimal("21.5"), "llama-3.1-8b", fit_margin_gib=0).fits


def test_card_memory_comes_from_what_the_driver_reports(data):
    h200 = data.gpu("h200-sxm")
    assert engines.card_gib(h200).value == Decimal(143771) / 1024


# -- the corpus of published logs (data/engine_logs.yaml, compared by calc/engine_logs.py) ---------------


def _covered(held_back: bool) -> list:
    data = load_site(ROOT)
    return [pytest.param(log, id=log.id) for log in data.engine_logs
            if log.held_back == held_back and engine_logs.not_covered(log, data) is None]


def check_against_log(log, data, weights=None) -> None:
    """The budget for ``log`` (with the logged weights, or ``weights``) within TOLERANCE of the logged cache, and
    the engine starting where the log shows it did, and not where it did not."""
    result = engine_logs.log_budget(log, data, weights)
    logged = engine_logs.logged_kv_gib(log)
    if logged is not None:
        error = abs(result.kv_cache_gib.value - logged.value) / abs(logged.value)
        assert error <= TOLERANCE, \
            f"KV cache {result.kv_cache_gib.value:.3f} GiB against {logged.value:.3f} logged ({error:.1%})"
    elif log.figure("kv_tokens"):
        tokens = Decimal(log.figure("kv_tokens"))
        error = abs(result.kv_tokens.value - tokens) / tokens
        assert error <= TOLERANCE, f"{result.kv_tokens.value} tokens against {tokens} logged ({error:.1%})"
    if log.figure("started") is False:
        assert not result.starts, f"the log shows {log.figure('failure')!r}; the model starts"
    if log.figure("started") is True:
        assert result.starts, result.reason


@pytest.mark.parametrize("log", _covered(held_back=False))
def test_corpus_case(log, data):
    check_against_log(log, data)


@pytest.mark.parametrize("log", _covered(held_back=True))
def test_held_back_corpus_case(log, data):
    """Cases kept out of every choice of coefficient, run with the same tolerance."""
    check_against_log(log, data)


def test_the_corpus_covers_vllm_failures_and_budgets(data):
    covered = [log for log in data.engine_logs if engine_logs.not_covered(log, data) is None]
    assert any(log.figure("started") is False for log in covered)
    assert any(log.figure("kv_cache_gib") is not None for log in covered)


def test_a_log_names_why_it_cannot_be_compared(data):
    reasons = {log.id: engine_logs.not_covered(log, data) for log in data.engine_logs}
    assert any(reason and "no catalogue model" in reason for reason in reasons.values())
    assert sum(reason is None for reason in reasons.values()) >= 8


# -- weights as the engine loads them --------------------------------------------------------------------------


def _loaded(data, model_id: str, format_id: str, gpu_id: str | None, cards: int = 1):
    from vramsite.calc.weight_formats import format_by_id, weight_bytes
    model, weight_format = data.catalogue_model(model_id), format_by_id(data.weight_formats, format_id)
    stored = weight_bytes(model, weight_format, cards)
    card = data.gpu(gpu_id) if gpu_id else None
    return stored.value, engines.loaded_weights(data.engines.engine("vllm"), model, weight_format, card, cards,
                                                stored).value


def test_vllm_pads_mxfp4_experts_for_marlin_on_a_card_without_fp4(data):
    """gpt-oss-120b's experts, 2,880 x 2,880, become 2,944 x 3,072 (mxfp4.py's Marlin branch): +9.0 %."""
    from vramsite.calc.weight_formats import class_bytes, format_by_id
    stored, loaded = _loaded(data, "gpt-oss-120b", "mxfp4", "h100-sxm")
    experts = class_bytes(data.catalogue_model("gpt-oss-120b"), format_by_id(data.weight_formats, "mxfp4"), "experts")
    assert abs(loaded - stored - experts * (Decimal(2944 * 3072) / (2881 * 2880) - 1)) < 1  # bytes
    assert abs(loaded / 2**30 - Decimal("65.9651")) / Decimal("65.9651") < Decimal("0.01")  # vLLM 0.10.1's log


def test_no_padding_where_the_card_computes_in_the_format_or_is_not_named(data):
    for gpu_id in ("b200", None):
        stored, loaded = _loaded(data, "gpt-oss-120b", "mxfp4", gpu_id)
        assert loaded == stored
    stored, loaded = _loaded(data, "llama-3.1-8b", "bf16", "h100-sxm")
    assert loaded == stored


def test_a_card_free_term_is_the_same_figure_on_every_card_and_the_budget_still_follows_the_card(data, book):
    """The activation peak and the sequences' cache are worked out once per request shape; the budget is not."""
    vllm, model = book.engine("vllm"), data.catalogue[0]
    kv = book.kv_cache_format("bf16")
    small, large = (engines.engine_budget(vllm, gib(memory), gib(10), model, 1, 8192, 1, kv) for memory in (40, 60))
    assert small.taken[0] is large.taken[0]  # the same shape (both below 70 GiB, so the same defaults): one figure
    assert large.kv_cache_gib.value - small.kv_cache_gib.value == Decimal("0.9") * 20


def test_a_hash_kept_on_a_card_stays_out_of_its_pickle(data):
    """A string's hash is salted per process: a pickled card (the page cache, a worker's result) carries none."""
    import pickle
    card = data.gpus[0]
    hash(card)
    copy = pickle.loads(pickle.dumps(card))
    assert "_hash" not in copy.__dict__ and copy == card and hash(copy) == hash(card)


# -- a log's settings in its engine's own names (data/engine_logs.yaml engines) ---------------------------------


def _a_log(data, engine_id: str, **changed):
    log = next(log for log in data.engine_logs
               if log.engine == engine_id and engine_logs.not_covered(log, data) is None)
    return replace(log, **changed)


def replace_setting(log, name: str, value):
    return replace(log, settings=tuple((key, value if key == name else old) for key, old in log.settings)
                   + (() if name in dict(log.settings) else ((name, value),)))


def test_a_log_names_its_kv_cache_format_in_its_engines_words(data):
    llama = _a_log(data, "llama.cpp")
    assert engine_logs.kv_format_id(replace_setting(llama, "type_k", "q8_0"), data) == "q8_0"
    assert engine_logs.kv_format_id(replace_setting(llama, "type_k", None), data) == "bf16"  # its default, f16
    vllm = _a_log(data, "vllm")
    assert engine_logs.kv_format_id(replace_setting(vllm, "kv_cache_dtype", "fp8"), data) == "fp8"


def test_a_log_of_a_version_the_data_does_not_model_is_not_compared(data):
    assert engine_logs.not_covered(_a_log(data, "vllm", engine_version="0.21.0"), data) == (
        "vLLM 0.21.0 is outside the versions modelled")
    assert engine_logs.not_covered(_a_log(data, "vllm", engine_version="0.6.3"), data) is not None
    assert engine_logs.not_covered(_a_log(data, "vllm", engine_version="0.20.9"), data) is None


def test_an_older_engines_log_ran_with_its_settings(data):
    """vLLM's V0 engine (before 0.8, or a log counting 'GPU blocks') ran without chunked prefill."""
    older = _a_log(data, "vllm", engine_version="0.7.3")
    newer = _a_log(data, "vllm", engine_version="0.9.0")
    unversioned = _a_log(data, "vllm", engine_version=None, logged=("INFO ... # GPU blocks: 1478, # CPU blocks: 2048",))
    assert dict(engine_logs.log_budget(older, data).settings)["chunked_prefill"] == 0
    assert dict(engine_logs.log_budget(newer, data).settings)["chunked_prefill"] == 1
    assert dict(engine_logs.log_budget(unversioned, data).settings)["chunked_prefill"] == 0


@pytest.mark.parametrize("old, new, field, words", [
    ("  sglang:\n    kv_cache: kv_cache_dtype\n    context: max_model_len\n", "",
     "engine", "engine 'sglang' has no entry in engines: say how its logs name its settings"),
    ("  trtllm:\n", "  tgi:\n", "engines.tgi", "unknown engine 'tgi'"),
])
def test_how_logs_name_settings_is_checked(tmp_path, old, new, field, words):
    with pytest.raises(InputError) as raised:
        load_site(_data_copy(tmp_path, old, new, "engine_logs"))
    problems = [problem for problem in raised.value.problems if problem.file == "data/engine_logs.yaml"]
    assert problems and problems[0].line is not None, raised.value.problems
    assert field in problems[0].field and words in problems[0].message

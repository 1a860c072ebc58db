"""The engine verdicts the model and GPU pages give (calc/serving.py), against the cases that made them necessary.

gpt-oss-120b on one 80 GB card: the pages used to say INT4 fits an A100 SXM at 61 GB; vLLM loads 64 to 66 GiB of
MXFP4 weights on an H100 and does not start at its default memory utilization
(https://github.com/vllm-project/vllm/issues/23278, data/engine_logs.yaml). The page must say so.
"""

from __future__ import annotations

import json
from decimal import Decimal
from pathlib import Path

import pytest

from vramsite.calc.figure import MEMORY, given
from vramsite.calc.serving import heads_split_refused, serving_engine, verdict
from vramsite.render.calculator import model_path
from live_sites import live_build
from site_support import table_download

ROOT = Path(__file__).resolve().parent.parent


@pytest.fixture(scope="module")
def built():
    return live_build("default")


def _rows(files, table_id: str) -> dict:
    return {row["key"]: row["cells"] for row in table_download(files, table_id)["rows"]}


def test_gpt_oss_120b_does_not_start_on_any_80_gb_card_in_the_format_it_ships_in(built):
    build, files = built
    context = _rows(files, "model-context-gpt-oss-120b")
    for card in ("h100-sxm", "h100-pcie", "a100-sxm"):
        assert "no" in context[card]["mxfp4"]["flags"], card
    serving = _rows(files, "model-serving-gpt-oss-120b")
    assert list(serving)[0] == "mxfp4"
    chosen = build.guide.catalogue_model("gpt-oss-120b").serving_choice("mxfp4")
    assert chosen.offer.gpu.memory_gb > 80 and chosen.verdict.starts
    markdown = files["en/models/gpt-oss-120b.html.md"].decode()
    assert "It ships in MXFP4" in markdown and "vLLM" in markdown


def test_every_model_page_leads_with_its_native_format_and_names_the_engine(built):
    build, files = built
    for view in build.guide.catalogue:
        rows = table_download(files, f"model-serving-{view.id}")["rows"]
        assert rows[0]["key"] == view.native_format().id, view.id
        page = files[f"en/models/{view.id}.html.md"].decode()
        assert f"It ships in {view.native_format().name}" in page, view.id


def test_a_gguf_format_is_served_by_llama_cpp_and_the_rest_by_the_default_engine(built):
    build, _ = built
    engines = build.data.engines
    assert serving_engine(engines, build.guide.weight_format("gguf-q4_k_m")).id == "llama.cpp"
    assert serving_engine(engines, build.guide.weight_format("awq-int4")).id == engines.default_engine


def test_a_card_without_the_formats_hardware_gets_a_verdict_not_an_error(built):
    build, _ = built
    model = build.data.catalogue_model("llama-3.1-8b")
    answer = verdict(build.data.engines, model, build.guide.weight_format("fp8"), build.data.gpu("rtx-3090"), 1,
                     8192, 1)
    assert not answer.starts and answer.reason.startswith("needs fp8")


def test_an_engine_that_does_not_load_the_format_says_so(built):
    build, _ = built
    model = build.data.catalogue_model("llama-3.1-8b")
    llama_cpp = build.data.engines.engine("llama.cpp")
    answer = verdict(build.data.engines, model, build.guide.weight_format("awq-int4"), build.data.gpu("h100-sxm"), 1,
                     8192, 1, engine=llama_cpp)
    assert not answer.starts and "does not load" in answer.reason


def test_an_engine_that_does_not_run_on_the_cards_stack_does_not_start_there(built):
    """TensorRT-LLM runs on NVIDIA's stack only (data/engines.yaml stacks): not on an MI300X, whatever its memory;
    vLLM and llama.cpp run there. The calculator's serving file has no room for it on that card."""
    build, files = built
    model, bf16 = build.data.catalogue_model("llama-3.1-8b"), build.guide.weight_format("bf16")
    mi300x, h100 = build.data.gpu("mi300x"), build.data.gpu("h100-sxm")
    engines = build.data.engines
    refused = verdict(engines, model, bf16, mi300x, 1, 8192, 1, engine=engines.engine("trtllm"))
    assert not refused.starts and refused.budget is None and "does not run on rocm" in refused.reason
    assert verdict(engines, model, bf16, h100, 1, 8192, 1, engine=engines.engine("trtllm")).starts
    for engine_id in ("vllm", "sglang", "llama.cpp"):
        assert verdict(engines, model, bf16, mi300x, 1, 8192, 1, engine=engines.engine(engine_id)).starts, engine_id
    rooms = json.loads(files[model_path("llama-3.1-8b")])["rooms"]["bf16"]
    assert "1x-mi300x" not in rooms["trtllm"]["rooms"] and "1x-h100-sxm" in rooms["trtllm"]["rooms"]
    assert "1x-mi300x" in rooms["vllm"]["rooms"]


def test_vllm_refuses_a_tensor_split_that_does_not_divide_the_attention_heads(built):
    """vLLM: 'Total number of attention heads (40) must be divisible by tensor parallel size (3)'
    (vllm/config.py ModelConfig.verify_with_parallel_config)."""
    build, _ = built
    model = build.data.catalogue_model("qwen2.5-14b")  # 40 attention heads
    vllm, llama_cpp = build.data.engines.engine("vllm"), build.data.engines.engine("llama.cpp")
    assert "(40) must be divisible by tensor parallel size (3)" in heads_split_refused(vllm, model, 3)
    assert heads_split_refused(vllm, model, 8) is None
    assert heads_split_refused(llama_cpp, model, 3) is None  # it splits layers, not heads
    memory = given(Decimal(80), "GiB", MEMORY, "memory per card")
    answer = verdict(build.data.engines, model, build.guide.weight_format("bf16"), memory, 3, 8192, 1)
    assert not answer.starts and "divisible" in answer.reason


def test_the_gpu_page_lists_the_real_models_with_their_engine_verdicts(built):
    build, files = built
    rows = _rows(files, "gpu-models-h100-sxm")
    assert set(rows) == {view.id for view in build.guide.catalogue}
    assert "no" in rows["gpt-oss-120b"]["kv_tokens"]["flags"]
    assert int(rows["llama-3.1-8b"]["kv_tokens"]["exact"]) > 8192


def test_the_guide_sets_the_engines_against_their_published_logs(built):
    """The Measured section's comparison: every log that can be compared, its figures beside ours; the gpt-oss-120b
    failure on an H100 (vllm-project/vllm#23278) is reproduced as a failure."""
    build, files = built
    rows = _rows(files, "engine-logs")
    assert len(rows) >= 8 and set(rows) <= {log.id for log in build.data.engine_logs}
    gpt_oss = rows["vllm-gpt-oss-120b-h100-tp1-defaults"]
    assert "no" in gpt_oss["started_logged"]["flags"] and "no" in gpt_oss["starts_ours"]["flags"]
    for key, row in rows.items():
        if "exact" in row["weights_logged"]:
            logged, ours = Decimal(row["weights_logged"]["exact"]), Decimal(row["weights_ours"]["exact"])
            assert abs(ours - logged) / logged <= Decimal("0.08"), key
    assert "Against published engine logs" in files["en/vram.html.md"].decode()
    assert "与公开的引擎日志对照" in files["zh-cn/vram.html.md"].decode()

"""Each developer's recipe of docs/editing.md, made by hand on a copy of the repository (engine and site), reaches a
model page.

A recipe may touch the engine's code, so the copy holds the engine too, and its own build.py runs it in a fresh
interpreter (the script's folder comes first on the path: the copy's vramsite is the one imported). Each recipe
edits only the files its section names, with a toy of its own, then imports a model by ``build.py model add`` where
the recipe concerns how a config is read, builds the site and reads the result in what was written.
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
from decimal import Decimal
from pathlib import Path

import yaml

from calculator_support import NODE, run_node
from cli_support import ROOT, copy_engine, hashes, named_models_only
from site_support import table_download
from vramsite.render.calculator import model_path

LLAMA_8B = ROOT / "tests" / "fixtures" / "hf_configs" / "llama-3.1-8b.json"
CATALOGS = ("en", "zh_CN")


def run(root: Path, *args: str) -> subprocess.CompletedProcess:
    """The copy's own ``build.py ARGS``, as a developer runs it in that checkout."""
    found = subprocess.run([sys.executable, str(root / "build.py"), *args], capture_output=True, text=True,
                           cwd=root, timeout=600)
    assert found.returncode == 0, found.stderr
    return found


def build(root: Path) -> Path:
    out = root.parent / "out"
    run(root, "build", "--out", str(out), "--jobs", "1")
    return out


def add_model(root: Path, config: dict, model_id: str) -> dict:
    path = root.parent / f"{model_id}.json"
    path.write_text(json.dumps(config, indent=2), encoding="utf-8")
    run(root, "model", "add", str(path), "--id", model_id, "--source-repository", f"example/{model_id}",
        "--source-revision", "a toy written by tests/test_recipes_developer.py")
    models = yaml.safe_load((root / "data" / "catalogue.yaml").read_text(encoding="utf-8"))["models"]
    return next(model for model in models if model["id"] == model_id)


def edit(path: Path, old: str, new: str) -> None:
    text = path.read_text(encoding="utf-8")
    assert text.count(old) == 1, f"{old!r} must occur once in {path.name}"
    path.write_text(text.replace(old, new), encoding="utf-8")


def add_message(root: Path, msgid: str, texts: dict[str, str]) -> None:
    for catalog in CATALOGS:
        path = root / "locales" / catalog / "LC_MESSAGES" / "messages.po"
        with path.open("a", encoding="utf-8") as handle:
            handle.write(f'\nmsgid "{msgid}"\nmsgstr "{texts[catalog]}"\n')


def table_rows(out: Path, table: str) -> dict[str, dict]:
    files = {path.relative_to(out).as_posix(): path.read_bytes() for path in (out / "data" / "en").rglob("*.json")}
    rows = table_download(files, table)["rows"]
    return {row["key"]: row["cells"] for row in rows}


def repository_copy(target: Path) -> tuple[Path, dict[str, str]]:
    """A copy of the engine and the site to follow a recipe on, its catalogue cut to the models the rest of its
    data names (a recipe changes the machinery, which those exercise); and the digest of each of its files."""
    root = named_models_only(copy_engine(target))
    return root, hashes(root)


def changed_files(root: Path, before: dict[str, str]) -> set[str]:
    """The files of the copy whose bytes differ from ``before``'s, or that one of the two alone has."""
    after = {path: digest for path, digest in hashes(root).items()
             if "__pycache__" not in path.split("/") and ".cache" not in path.split("/")}
    return {path for path in set(before) | set(after) if before.get(path) != after.get(path)}


# -- Add a layer kind -----------------------------------------------------------------------------------------------

CHUNKED = '''"""Chunked attention (Llama 4): keys and values as full attention, of at most one chunk of tokens."""

from __future__ import annotations

from dataclasses import dataclass

from .full import FullAttention


@dataclass(frozen=True)
class ChunkedAttention(FullAttention):
    kind = "chunked"
    words = "layers:chunked"
    per_token_label = "chunked attention per token"
    schema = {**FullAttention.schema,
              "chunk": {"type": "integer", "minimum": 1, "maximum": 100000000,
                        "description": "Tokens a chunk holds: the most a sequence keeps in these layers."}}
    config_layer_type = "chunked_attention"
    config_keys = {**FullAttention.config_keys, "chunk": "attention_chunk_size"}

    chunk: int

    def window_tokens(self) -> int:
        return self.chunk
'''
CHUNKED_PARAGRAPH = {
    "en": "{% if facts.layers.kinds.chunked %}\n{{ facts.layers.kinds.chunked.layers | fig }} attend within chunks "
          "of {{ facts.layers.kinds.chunked.window | fig }}.\n\n{% endif %}\n",
    "zh-cn": "{% if facts.layers.kinds.chunked %}\n其中 {{ facts.layers.kinds.chunked.layers | fig }}只关注 "
             "{{ facts.layers.kinds.chunked.window | fig }} 的分块。\n\n{% endif %}\n",
}
TOY_CHUNKED = {
    # Llama 4's text model keeps three of four layers in chunks (transformers: layer_types "chunked_attention",
    # configuration_utils.py ALLOWED_LAYER_TYPES; Llama4TextConfig attention_chunk_size 8192), written as Llama's
    "architectures": ["LlamaForCausalLM"], "hidden_size": 4096, "num_attention_heads": 32,
    "num_key_value_heads": 8, "head_dim": 128, "num_hidden_layers": 8, "intermediate_size": 14336,
    "vocab_size": 32000, "max_position_embeddings": 131072, "torch_dtype": "bfloat16",
    "attention_chunk_size": 8192, "layer_types": (["chunked_attention"] * 3 + ["full_attention"]) * 2,
}


def add_a_layer_kind(root: Path) -> None:
    (root / "vramsite" / "calc" / "layers" / "chunked.py").write_text(CHUNKED, encoding="utf-8")
    registry = root / "vramsite" / "calc" / "layers" / "__init__.py"
    edit(registry, "from .sliding import SlidingAttention\n",
         "from .sliding import SlidingAttention\nfrom .chunked import ChunkedAttention\n")
    edit(registry, "(FullAttention, SlidingAttention, LatentAttention, LinearAttention)",
         "(FullAttention, SlidingAttention, LatentAttention, LinearAttention, ChunkedAttention)")
    subprocess.run([sys.executable, "-m", "vramsite.importers.catalogue_schema"], cwd=root, check=True, timeout=120)
    add_message(root, "layers:chunked", {"en": "chunked attention", "zh_CN": "分块注意力"})
    add_message(root, "chunked attention per token",
                {"en": "chunked attention per token", "zh_CN": "分块注意力每个 token"})
    for segment, paragraph in CHUNKED_PARAGRAPH.items():
        edit(root / "content" / segment / "model.md", "{% if facts.layers.moe %}\n",
             paragraph + "{% if facts.layers.moe %}\n")


def test_add_a_layer_kind(tmp_path):
    root, before = repository_copy(tmp_path / "repository")
    add_a_layer_kind(root)
    assert changed_files(root, before) == {
        "vramsite/calc/layers/chunked.py", "vramsite/calc/layers/__init__.py", "vramsite/schemas/catalogue.schema.json",
        "locales/en/LC_MESSAGES/messages.po", "locales/zh_CN/LC_MESSAGES/messages.po",
        "content/en/model.md", "content/zh-cn/model.md"}

    entry = add_model(root, TOY_CHUNKED, "toy-chunked")
    assert entry["layers"] == [{"kind": "chunked", "count": 6, "kv_heads": 8, "head_dim": 128, "chunk": 8192},
                               {"kind": "full", "count": 2, "kv_heads": 8, "head_dim": 128}]
    out = build(root)

    per_layer = 2 * 8 * 128 * 2  # keys and values × KV heads × head dim × 2 bytes (BF16), one token in one layer
    kv = table_rows(out, "model-kv-toy-chunked")["bf16"]
    assert Decimal(kv["per_token_bytes"]["exact"]) == 8 * per_layer
    assert Decimal(kv["kv_32768"]["exact"]) * 10**9 == (6 * 8192 + 2 * 32768) * per_layer
    page = (out / "en" / "models" / "toy-chunked.html.md").read_text(encoding="utf-8")
    assert "6 layers attend within chunks of 8,192 tokens." in page
    assert "chunked attention per token" in (out / "en" / "models" / "toy-chunked.html").read_text(encoding="utf-8")
    assert "分块注意力" in (out / "zh-cn" / "models" / "index.html").read_text(encoding="utf-8")
    assert "chunked attention" in (out / "en" / "models" / "index.html.md").read_text(encoding="utf-8")
    if NODE:  # the in-page calculator sizes it from the formulas the build hands its script
        data = {**json.loads((out / "data" / "en" / "calculator.json").read_text(encoding="utf-8")),
                "model_files": {"toy-chunked": json.loads((out / model_path("toy-chunked")).read_text(encoding="utf-8"))}}
        state = {"model": "toy-chunked", "method": "inference", "precision": "bf16", "kv_precision": "bf16",
                 "context": 32768, "batch": 1, "format": "bf16", "engine": None, "card": None}
        answer = run_node(data, [state])[0]
        assert answer["per_token"]["value"] == f"{8 * per_layer:,} bytes"
        assert answer["lines"][1]["explain"] == f"{(6 * 8192 + 2 * 32768) * per_layer:,} bytes × 1 sequence = 0.5 GB"


# -- Add a weight format --------------------------------------------------------------------------------------------

TOY_STORAGE = '''  - id: int6-group64
    element_bits: 6
    block: 64
    block_bits: 16
    source: "a toy: six bits a weight and one 16-bit scale per 64 weights"
'''
TOY_FORMAT = '''  - id: toy-int6
    name: TOY INT6
    tensors: {attention: int6-group64, dense_mlp: int6-group64, experts: int6-group64, shared_experts: int6-group64, rest: bf16}
    source: "a toy format of tests/test_recipes_developer.py"
    checkpoint:
      quant_method: toyq
      settings: {bits: 6}
      source: "a toy quantization_config of tests/test_recipes_developer.py"
'''


def add_a_weight_format(root: Path) -> None:
    formats = root / "data" / "weight_formats.yaml"
    edit(formats, "\nformats:\n", TOY_STORAGE + "\nformats:\n")
    formats.write_text(formats.read_text(encoding="utf-8") + TOY_FORMAT, encoding="utf-8")
    offered = re.search(r"^offered: \[(.*)\]$", formats.read_text(encoding="utf-8"), re.M)
    edit(formats, offered[0], f"offered: [{offered[1]}, toy-int6]")
    engines = root / "data" / "engines.yaml"
    loads = re.search(r"^      ids: \[bf16, fp16, fp32, fp8, .*\]$", engines.read_text(encoding="utf-8"), re.M)
    edit(engines, loads[0], loads[0][:-1] + ", toy-int6]")  # the default engine's list comes first


def test_add_a_weight_format(tmp_path):
    root, before = repository_copy(tmp_path / "repository")
    add_a_weight_format(root)
    assert changed_files(root, before) == {"data/weight_formats.yaml", "data/engines.yaml"}

    config = {**json.loads(LLAMA_8B.read_text(encoding="utf-8")),
              "quantization_config": {"quant_method": "toyq", "bits": 6}}
    assert add_model(root, config, "toy-llama")["native_format"] == "toy-int6"
    out = build(root)

    # Llama 3.1 8B's attention and MLP at 6 + 16 / 64 bits, its embeddings, head and norms at 16
    models = yaml.safe_load((root / "data" / "catalogue.yaml").read_text(encoding="utf-8"))["models"]
    classes = next(model for model in models if model["id"] == "llama-3.1-8b")["parameters"]
    quantized = classes["attention"] + classes["dense_mlp"]
    kept = classes["embedding"] + classes["output_head"] + classes["other"]
    weights = table_rows(out, "model-weights-llama-3.1-8b")["toy-int6"]
    assert Decimal(weights["weights_gb"]["exact"]) * 10**9 == quantized * Decimal("6.25") / 8 + kept * 2
    assert weights["engine"]["text"] == "vLLM"
    page = (out / "en" / "models" / "toy-llama.html.md").read_text(encoding="utf-8")
    assert "It ships in TOY INT6:" in page


# -- Add an engine --------------------------------------------------------------------------------------------------

def add_an_engine(root: Path) -> None:
    engines = root / "data" / "engines.yaml"
    text = engines.read_text(encoding="utf-8")
    modelled = re.search(r"^  - id: trtllm\n.*?(?=^  - id: |\Z)", text, re.M | re.S)[0]
    toy = modelled.replace("  - id: trtllm\n    name: TensorRT-LLM\n", "  - id: toy-serve\n    name: Toy Serve\n")
    engines.write_text(text.rstrip("\n") + "\n\n" + toy.rstrip("\n") + "\n", encoding="utf-8")
    edit(engines, "default_engine: vllm\n", "default_engine: toy-serve\n")


def test_add_an_engine(tmp_path):
    root, before = repository_copy(tmp_path / "repository")
    add_an_engine(root)
    assert changed_files(root, before) == {"data/engines.yaml"}

    planned = json.loads(run(root, "plan", "llama-3.1-8b", "--gpu", "h100-sxm", "--json").stdout)
    assert planned["engine"] == "toy-serve" and planned["fits"]
    out = build(root)
    weights = table_rows(out, "model-weights-llama-3.1-8b")
    assert weights["bf16"]["engine"]["text"] == "Toy Serve"
    assert weights["gguf-q4_k_m"]["engine"]["text"] == "llama.cpp"  # a format it does not load keeps its engine
    page = (out / "en" / "models" / "llama-3.1-8b.html.md").read_text(encoding="utf-8")
    assert "Every verdict below that a card runs it is Toy Serve's" in page


RECIPES = {"Add a layer kind": test_add_a_layer_kind, "Add a weight format": test_add_a_weight_format,
           "Add an engine": test_add_an_engine}


def test_every_developers_recipe_is_tested():
    guide = (ROOT / "docs" / "editing.md").read_text(encoding="utf-8")
    section = guide[guide.index("## Developer's recipes\n"):]
    section = section[:section.index("\n## ", 1)]
    assert re.findall(r"^### (.+)$", section, re.M) == list(RECIPES)

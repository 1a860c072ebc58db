"""The measuring steps: context, inference per shape, streaming bandwidth, LoRA and full fine-tuning.

Each step returns the figures the measurement file records under its key,
exactly as measured: whole bytes, MiB as the driver counts them, seconds.
"""

from __future__ import annotations

import gc
import statistics
import time
from dataclasses import dataclass

import torch

from .shapes import Shape

LORA_TARGETS = ("q_proj", "k_proj", "v_proj", "o_proj")
WORKSPACE_MATMUL = 4096
"""The side of the BF16 matmul whose library workspace the context figure includes."""


@dataclass(frozen=True)
class Settings:
    device: str
    contexts: tuple[int, ...]
    """Tokens of one forward pass, for each shape (the first context goes with the first shape, and so on)."""
    sequence_tokens: int
    batch: int
    lora_rank: int
    bandwidth_side: int
    """The square matrix streamed once per run: side × side BF16 elements."""
    bandwidth_runs: int
    train_shape: Shape


def tensor_bytes(tensors) -> int:
    return sum(tensor.numel() * tensor.element_size() for tensor in tensors)


def build_model(shape: Shape, dtype, device):
    """A Llama-architecture model of ``shape`` with random weights (grouped-query where KV heads < heads)."""
    from transformers import LlamaConfig, LlamaForCausalLM

    config = LlamaConfig(hidden_size=shape.hidden_size, intermediate_size=shape.intermediate_size,
                         num_hidden_layers=shape.layers, num_attention_heads=shape.attention_heads,
                         num_key_value_heads=shape.kv_heads, vocab_size=shape.vocab_size,
                         max_position_embeddings=max(4096, shape.hidden_size), attn_implementation="sdpa",
                         tie_word_embeddings=False)
    with torch.device(device):
        model = LlamaForCausalLM(config)
    return model.to(dtype)


def checkpoint_activations(model) -> None:
    """Gradient checkpointing, under the name this transformers version gives it."""
    enable = getattr(model, "activation_checkpointing_enable", None) or model.gradient_checkpointing_enable
    enable()


def cache_bytes(cache) -> int:
    """The bytes of every key and value a forward pass kept."""
    layers = getattr(cache, "layers", None)
    if layers is not None:
        return tensor_bytes(tensor for layer in layers for tensor in (layer.keys, layer.values) if tensor is not None)
    return tensor_bytes(tensor for pair in cache for tensor in pair)


def measure_context(probe) -> dict | None:
    """Memory in use before any CUDA use, after the context, after one matmul's library workspace."""
    before = probe.used_mib()
    if before is None:
        return None
    started = time.perf_counter()
    torch.ones(1, device=probe.device)
    probe.synchronize()
    after_init = probe.used_mib()
    side = torch.ones(WORKSPACE_MATMUL, WORKSPACE_MATMUL, dtype=torch.bfloat16, device=probe.device)
    (side @ side).sum().item()
    del side
    probe.release()
    return {"used_mib_before": before, "used_mib_after_init": after_init,
            "used_mib_after_workspace": probe.used_mib(), "workspace_matmul": WORKSPACE_MATMUL,
            "seconds": round(time.perf_counter() - started, 3)}


def measure_inference(probe, shape: Shape, context: int, batch: int) -> dict:
    """One forward pass of ``context`` tokens at BF16 with the cache kept (logits of the last token only)."""
    started = time.perf_counter()
    base = probe.allocated()
    model = build_model(shape, torch.bfloat16, probe.device).eval()
    params = sum(parameter.numel() for parameter in model.parameters())
    weights = tensor_bytes(model.parameters()) if probe.memory_from == "cpu" else probe.allocated() - base
    tokens = torch.randint(0, shape.vocab_size, (batch, context), device=probe.device)
    start = probe.start_peak()
    with torch.no_grad():
        output = model(input_ids=tokens, use_cache=True, logits_to_keep=1)
    prefill_peak = probe.peak_since(start) + (start - base - weights if probe.memory_from == "cuda" else 0)
    held = cache_bytes(getattr(output, "cache", None) or output.past_key_values)
    found = {"shape": shape.id, "context_tokens": context, "batch": batch, "params": params,
             "weights_bytes": weights, "kv_bytes": held, "prefill_peak_bytes": weights + prefill_peak}
    used = probe.used_mib()
    if used is not None:
        found["used_mib_at_end"] = used
    found["seconds"] = round(time.perf_counter() - started, 3)
    del model, output, tokens
    _collect(probe)
    return found


def measure_bandwidth(probe, side: int, runs: int) -> dict:
    """A side × side BF16 matrix times a vector: every byte of the matrix read once per run."""
    started = time.perf_counter()
    matrix = torch.randn(side, side, dtype=torch.bfloat16, device=probe.device)
    vector = torch.randn(side, dtype=torch.bfloat16, device=probe.device)
    (matrix @ vector).sum().item()  # warm up
    times = []
    for _ in range(runs):
        probe.synchronize()
        begun = time.perf_counter()
        matrix @ vector
        probe.synchronize()
        times.append(time.perf_counter() - begun)
    streamed = tensor_bytes([matrix])
    median, best = statistics.median(times), min(times)
    del matrix, vector
    _collect(probe)
    return {"bytes": streamed, "runs": runs, "median_s": median, "best_s": best,
            "median_tbps": streamed / median / 1e12, "best_tbps": streamed / best / 1e12,
            "seconds": round(time.perf_counter() - started, 3)}


def measure_lora(probe, shape: Shape, settings: Settings) -> dict:
    """BF16 base, FP32 adapters of ``lora_rank`` on the attention projections, AdamW, two steps."""
    from peft import LoraConfig, get_peft_model

    started = time.perf_counter()
    base = probe.allocated()
    model = build_model(shape, torch.bfloat16, probe.device)
    checkpoint_activations(model)
    model.enable_input_require_grads()
    model = get_peft_model(model, LoraConfig(r=settings.lora_rank, lora_alpha=2 * settings.lora_rank,
                                             target_modules=list(LORA_TARGETS), lora_dropout=0.0))
    trainable = [parameter for parameter in model.parameters() if parameter.requires_grad]
    for parameter in trainable:
        parameter.data = parameter.data.float()
    optimizer = torch.optim.AdamW(trainable, lr=1e-4)
    found = _train(probe, model, optimizer, shape, settings, base)
    found.update(rank=settings.lora_rank, targets=list(LORA_TARGETS),
                 params=sum(parameter.numel() for parameter in model.parameters()),
                 trainable=sum(parameter.numel() for parameter in trainable))
    del model, optimizer, trainable
    _collect(probe)
    return _ordered(found, started)


def measure_full(probe, shape: Shape, settings: Settings) -> dict:
    """FP32 master weights and gradients, AdamW (fused on CUDA), gradient checkpointing, two steps."""
    started = time.perf_counter()
    base = probe.allocated()
    model = build_model(shape, torch.float32, probe.device)
    checkpoint_activations(model)
    optimizer = torch.optim.AdamW(model.parameters(), lr=1e-5, fused=probe.memory_from == "cuda")
    found = _train(probe, model, optimizer, shape, settings, base)
    found["params"] = sum(parameter.numel() for parameter in model.parameters())
    del model, optimizer
    _collect(probe)
    return _ordered(found, started)


def _train(probe, model, optimizer, shape: Shape, settings: Settings, base: int) -> dict:
    """Two steps under BF16 autocast; the peak above the allocation before the model was built."""
    model.train()
    tokens = torch.randint(0, shape.vocab_size, (settings.batch, settings.sequence_tokens), device=probe.device)
    start = probe.start_peak()
    for _ in range(2):
        with torch.autocast(device_type=probe.device.type, dtype=torch.bfloat16):
            loss = model(input_ids=tokens, labels=tokens, use_cache=False).loss
        loss.backward()
        optimizer.step()
        optimizer.zero_grad(set_to_none=True)
    peak = probe.peak_since(start) + (start - base)
    found = {"shape": shape.id, "sequence_tokens": settings.sequence_tokens, "batch": settings.batch,
             "peak_bytes": peak}
    used = probe.used_mib()
    if used is not None:
        found["used_mib_at_end"] = used
    return found


def _ordered(found: dict, started: float) -> dict:
    order = ("shape", "sequence_tokens", "batch", "rank", "targets", "params", "trainable", "peak_bytes",
             "used_mib_at_end")
    ordered = {key: found[key] for key in order if key in found}
    ordered["seconds"] = round(time.perf_counter() - started, 3)
    return ordered


def _collect(probe) -> None:
    gc.collect()
    probe.release()

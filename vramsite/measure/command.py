"""`build.py measure`: run every step on one device and write the measurement file."""

from __future__ import annotations

import datetime
import platform
from pathlib import Path

import yaml

from .output import write_new
from .shapes import REFERENCE_SHAPES, TINY_SHAPE, Shape

HEADER = """# yaml-language-server: $schema=../../vramsite/schemas/measurements.schema.json
#
# Written by `build.py measure`: what the device held, exactly as measured
# (memory in bytes, or MiB where a key says so). docs/editing.md, "Add a
# measurement", says what each key records.

"""


def plan(device: str) -> tuple[tuple[Shape, ...], dict]:
    """The shapes and sizes a run on ``device`` uses: the reference shapes on a GPU, a tiny one on a CPU."""
    if device.startswith("cuda"):
        return REFERENCE_SHAPES, {"contexts": (8192, 8192), "sequence_tokens": 2048, "batch": 1, "lora_rank": 16,
                                  "bandwidth_side": 65536, "bandwidth_runs": 20, "train_shape": REFERENCE_SHAPES[0]}
    return (TINY_SHAPE,), {"contexts": (64,), "sequence_tokens": 32, "batch": 1, "lora_rank": 4,
                           "bandwidth_side": 1024, "bandwidth_runs": 5, "train_shape": TINY_SHAPE}


def measure(device: str, gpu_id: str, date: datetime.date | None = None) -> dict:
    """Every step on ``device``; the measurement file's content for card ``gpu_id``."""
    import warnings

    import peft
    import torch
    import transformers

    warnings.filterwarnings("ignore", category=FutureWarning, module="transformers")  # renamed options, same run

    from . import run
    from .probe import probe_for

    probe = probe_for(device)
    shapes, sizes = plan(device)
    settings = run.Settings(device=device, **sizes)
    total_mib = probe.total_mib()
    context = run.measure_context(probe)
    inference = [run.measure_inference(probe, shape, context_tokens, settings.batch)
                 for shape, context_tokens in zip(shapes, settings.contexts)]
    bandwidth = run.measure_bandwidth(probe, settings.bandwidth_side, settings.bandwidth_runs)
    lora = run.measure_lora(probe, settings.train_shape, settings)
    full = run.measure_full(probe, settings.train_shape, settings)
    day = (date or datetime.date.today()).isoformat()
    found = probe.versions()
    name = found.pop("name")
    versions = {**found, "torch": str(torch.__version__), "transformers": str(transformers.__version__),
                "peft": str(peft.__version__)}
    device_data = {"name": name, "kind": "cuda" if device.startswith("cuda") else "cpu"}
    if total_mib is not None:
        device_data["total_mib"] = total_mib
    device_data.update(versions)
    provenance = (f"one {name}, torch {torch.__version__}, transformers "
                  f"{transformers.__version__}, random weights, sdpa attention, {day}")
    content = {"gpu": gpu_id, "date": day, "provenance": provenance, "device": device_data,
               "settings": {"precision": "bf16", "attention": "sdpa", "weights": "random",
                            "memory_from": probe.memory_from, "note": probe.note,
                            "host": platform.machine()}}
    if context is not None:
        content["context"] = context
    content["shapes"] = [shape.as_data() for shape in shapes]
    content["inference"] = inference
    content["bandwidth"] = bandwidth
    content["finetune"] = {"lora": lora, "full": full}
    end = probe.used_mib()
    if end is not None:
        content["used_mib_end"] = end
    return content


def write_measurement(content: dict, out: Path) -> Path:
    """Write the file at ``out``, or beside it under a new name where a file is there: the path written."""
    return write_new(out, HEADER + yaml.safe_dump(content, sort_keys=False, allow_unicode=True, width=100))

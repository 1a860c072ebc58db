"""A generated site of any size, for timing the build at scale.

It uses the default site's sizing rules, display settings, templates and
catalogs, with generated cards, prices and model sizes, and pages that carry
the grid, the cost table, the catalogue and one page per card.
"""

from __future__ import annotations

import re
import shutil
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

MEMORY_SIZES = (16, 20, 24, 32, 40, 48, 64, 80, 96, 128, 141, 180, 192, 256, 288)
ARCHITECTURES = ("Ampere", "Ada", "Hopper", "Blackwell", "CDNA 3")
LINKS = (("pcie-gen4", 31, None), ("pcie-gen5", 63, None), ("nvlink-bridge", 56.25, 2), ("nvlink", 450, 8))
"""One way, as data/gpus.yaml states links."""


def write_synthetic_site(root: Path, cards: int, models: int) -> None:
    (root / "data").mkdir(parents=True, exist_ok=True)
    for name in ("site.yaml", "sizing.yaml", "discounts.yaml"):
        shutil.copy(ROOT / "data" / name, root / "data" / name)
    (root / "data" / "gpus.yaml").write_text(_gpus(cards), encoding="utf-8")
    (root / "data" / "prices.yaml").write_text(_prices(cards), encoding="utf-8")
    (root / "data" / "models.yaml").write_text(_models(models), encoding="utf-8")
    _content(root)


def _gpus(count: int) -> str:
    lines = ["gpus:"]
    for index in range(count):
        memory = MEMORY_SIZES[index % len(MEMORY_SIZES)]
        kind, gbps, reach = LINKS[index % len(LINKS)]
        lines += [
            f"  - id: card-{index:03d}",
            f"    name: Card {index:03d}",
            "    vendor: nvidia",
            f"    memory_gb: {memory}",
            "    memory_type: HBM3",
            f"    bandwidth_gbps: {300 + (index * 97) % 7700}",
            f"    architecture: {ARCHITECTURES[index % len(ARCHITECTURES)]}",
            f"    features: [{'fp8' if index % 3 else ''}]",
            "    stack: cuda",
            f"    interconnect: {{kind: {kind}, gbps: {gbps}" + (f", all_to_all_cards: {reach}" if reach else "")
            + ", source: synthetic}",
        ]
    return "\n".join(lines) + "\n"


def _prices(count: int) -> str:
    lines = ["updated: 2026-09-01", "currency: USD", "period: month", "hours_per_month: 720",
             "terms: {minimum_days: 7, billing: [week, month]}", "prices:"]
    for index in range(count):
        memory = MEMORY_SIZES[index % len(MEMORY_SIZES)]
        lines.append(f"  - {{gpu: card-{index:03d}, usd: {memory * 9 + (index * 37) % 400}}}")
    return "\n".join(lines) + "\n"


def _models(count: int) -> str:
    lines = ["models:"]
    for index in range(count):
        params = 1 + (index * 1013) % 800
        layers = 16 + (index * 7) % 112
        kv_heads = (8, 16, 32)[index % 3]
        lines += [
            f"  - id: m{index:03d}",
            f"    name: M{index:03d}",
            f"    params_billion: {params}",
            f"    layers: {layers}",
            "    attention: gqa",
            f"    attention_heads: {kv_heads * 4}",
            f"    kv_heads: {kv_heads}",
            "    head_dim: 128",
        ]
    return "\n".join(lines) + "\n"


PAGES = """pages:
  - id: vram
    template: guide.html
    nav: VRAM guide
    params: {long_contexts: [32768, 131072]}
  - id: index
    template: page.html
  - id: gpus/index
    source: gpus
    template: page.html
    nav: GPUs
  - id: "gpus/{card}"
    source: gpu
    each: card
    template: page.html
"""

GUIDE = """---
title: Synthetic guide
description: Every table of the guide over generated data.
---
## Inference {#inference}

{{ table("inference") }}

## Context {#context}

{{ table("context", contexts=params.long_contexts) }}

## Fine-tuning {#fine-tuning}

{{ table("finetune") }}

## Lookup {#lookup}

{{ table("lookup") }}

## Cost {#cost}

{{ table("cost") }}
"""

INDEX = """---
title: Synthetic site
description: A generated site for the benchmark.
---
[Guide]({{ link("vram") }}) · [GPUs]({{ link("gpus", "index") }})
"""

CATALOGUE = """---
title: Catalogue
description: Every generated card.
---
{{ table("catalogue") }}
"""

CARD = """---
title: "{{ card.name }}"
description: "{{ card.name }}, {{ card.memory | fig }}, {{ card.price | fig(period=True) }}"
---
{{ table("gpu_prices", gpu=card.id) }}

{{ table("gpu_wins", gpu=card.id) }}
"""


def _content(root: Path) -> None:
    (root / "content").mkdir(exist_ok=True)
    (root / "content" / "pages.yaml").write_text(PAGES, encoding="utf-8")
    site = (root / "data" / "site.yaml").read_text(encoding="utf-8")
    for segment in re.findall(r"\{segment: ([\w-]+),", site):  # every language the copied site.yaml lists
        folder = root / "content" / segment
        folder.mkdir(exist_ok=True)
        for name, text in (("vram", GUIDE), ("index", INDEX), ("gpus", CATALOGUE), ("gpu", CARD)):
            (folder / f"{name}.md").write_text(text, encoding="utf-8")

"""Reading a data file leaves nothing for the cycle collector: build and check run without it (cli.run)."""

from __future__ import annotations

import gc
from pathlib import Path

from vramsite.load.yaml_source import parse_yaml

ROOT = Path(__file__).resolve().parent.parent


def test_parsing_a_data_file_leaves_no_cycles():
    text = (ROOT / "data" / "gpus.yaml").read_text(encoding="utf-8")
    was_enabled = gc.isenabled()
    gc.collect()
    gc.disable()
    try:
        document = parse_yaml(text, "data/gpus.yaml")
        assert gc.collect() == 0
    finally:
        if was_enabled:
            gc.enable()
    assert document.value["gpus"]

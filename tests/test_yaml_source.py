"""Reading a data file leaves nothing for the cycle collector: build and check run without it (cli.run)."""

from __future__ import annotations

import gc
from decimal import Decimal
from pathlib import Path

import pytest

from vramsite.errors import InputError

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


# -- YAML 1.1's numbers and booleans ---------------------------------------------------------------------------------


@pytest.mark.parametrize("written, old", [("0300", "192"), ("-0300", "-192"), ("1:20", "80"), ("1:20.5", "80.5"),
                                          ("0x1F", "31"), ("0b11", "3"), ("1_000", "1000"), ("1_000.5", "1000.5"),
                                          ("!!int 0300", "192"), ('!!int "017"', "15")])
def test_a_number_only_yaml_1_1_reads_is_refused_saying_what_it_would_be(written, old):
    with pytest.raises(InputError) as refused:
        parse_yaml(f"gpus:\n  - memory_gb: {written}\n", "data/gpus.yaml")
    message = str(refused.value)
    assert message.startswith("data/gpus.yaml:2: gpus[0].memory_gb: ")
    assert f"is read as {old} by YAML 1.1's rules" in message and "write the number in plain decimal digits" in message


@pytest.mark.parametrize("written, value", [("yes", "yes"), ("No", "No"), ("ON", "ON"), ("off", "off"), ("y", "y"),
                                            ("true", True), ("False", False), ("300", 300), ("-0", 0), ("+7", 7),
                                            ("2.5", Decimal("2.5")), (".5", Decimal("0.5")),
                                            ("1.0e-9", Decimal("1.0E-9")), ('"0300"', "0300")])
def test_plain_numbers_and_booleans_read_as_yaml_1_2_reads_them(written, value):
    read = parse_yaml(f"a: {written}\n", "data/site.yaml").value["a"]
    assert read == value and type(read) is type(value)

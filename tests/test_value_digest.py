"""The digest a rebuild compares derived values by: equal values give one digest, in every run; others differ."""

from __future__ import annotations

import dataclasses
import os
import subprocess
import sys
from decimal import Decimal
from pathlib import Path

from vramsite.calc.digest import value_digest
from vramsite.calc.figure import MEMORY, given, product, total
from vramsite.publish.site import SiteBuild

ROOT = Path(__file__).resolve().parent.parent


def _need(params: str, overhead: str = "2"):
    weights = product(given(Decimal(params), "B params"), given(2, "B"), unit="GB", kind=MEMORY, label="weights")
    return total(weights, given(Decimal(overhead), "GB", MEMORY, "runtime overhead"), unit="GB", kind=MEMORY)


def test_equal_values_made_apart_share_a_digest():
    assert value_digest((_need("7"), "infer-bf16")) == value_digest((_need("7"), "infer-bf16"))


def test_a_value_that_differs_anywhere_has_another_digest():
    base = value_digest(_need("7"))
    assert value_digest(_need("8")) != base  # an input deep in the formula
    assert value_digest(_need("7", overhead="3")) != base
    relabelled = dataclasses.replace(_need("7"), label="total")
    assert value_digest(relabelled) != base  # what a derivation prints, not only the number


def test_a_card_with_other_features_has_another_digest():
    gpu = SiteBuild(ROOT).data.gpus[0]
    assert value_digest(dataclasses.replace(gpu, features=gpu.features | {"fp4"})) != value_digest(gpu)


_DIGESTS = """
import dataclasses
from pathlib import Path
from vramsite.calc.digest import value_digest
from vramsite.publish.site import SiteBuild
guide = SiteBuild(Path({root!r})).guide
print(sorted((gpu.id, value_digest(tuple(guide.cells_won_by(gpu.id)))) for gpu in guide.data.gpus))
formats = frozenset({{"fp8", "fp6", "fp4", "int8", "int4", "bf16", "tf32", "sparsity"}})
print(value_digest(dataclasses.replace(guide.data.gpus[0], features=formats)))
"""


def test_equal_values_have_the_same_digest_in_runs_with_other_hash_seeds():
    """A build keeps its digests for the next, another process, whose hash seed orders sets of strings
    differently: the cells each card wins, and a card of many features."""
    def digests(seed: str) -> str:
        run = subprocess.run([sys.executable, "-c", _DIGESTS.format(root=str(ROOT))], capture_output=True, text=True,
                             env={**os.environ, "PYTHONHASHSEED": seed}, cwd=ROOT, check=True)
        return run.stdout

    first = digests("1")
    assert "a40" in first
    assert all(digests(seed) == first for seed in ("2", "3", "4"))

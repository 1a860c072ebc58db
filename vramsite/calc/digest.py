"""A digest of a calculated value that two builds share exactly when the values are equal.

The value is pickled and the bytes hashed: two values written as the same
bytes are equal. Cards, figures and formulas are written their own way. A
card's ``features`` is a set, whose order changes with the hash seed of each
run, so it is written sorted. Figures and formulas are written as their
fields, about twice as fast as the generic way for slotted classes (a grid of
a hundred cards holds thousands of figures).
"""

from __future__ import annotations

import hashlib
import io
import pickle
from dataclasses import fields

from ..load.model import Gpu
from .figure import Figure, Formula


def value_digest(value) -> str:
    buffer = io.BytesIO()
    pickler = pickle.Pickler(buffer, protocol=5)
    pickler.dispatch_table = _WRITTEN_AS_FIELDS
    pickler.dump(value)
    return hashlib.sha256(buffer.getvalue()).hexdigest()


def _figure(figure: Figure):
    return Figure, (figure.value, figure.unit, figure.kind, figure.label, figure.formula)


def _formula(formula: Formula):
    return Formula, (formula.op, formula.terms)


_GPU_FIELDS = tuple(field.name for field in fields(Gpu))


def _gpu(gpu: Gpu):
    values = tuple(tuple(sorted(value)) if isinstance(value, (set, frozenset)) else value
                   for value in (getattr(gpu, name) for name in _GPU_FIELDS))
    return Gpu, values


_WRITTEN_AS_FIELDS = {Figure: _figure, Formula: _formula, Gpu: _gpu}

"""`build.py measure`: build models of given shapes with random weights and measure what a device holds.

Optional: it needs the ``measure`` extra (torch, transformers, peft, psutil),
which the site build never imports. It writes a measurement file in the
format of data/measurements/ (vramsite/schemas/measurements.schema.json).
"""

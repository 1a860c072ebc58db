"""The in-page calculator: the numbers its script evaluates, and the answer it shows, worked out here too.

``calculator_data`` (data.py) reduces a site to what the formula needs (each model's
parameters, the precisions, the methods' terms, the market's offers from calc/offers.py) and gives the
script the words and number format of one language, published once per language (``calculator_path``) for
every page's script to fetch; a real model's own layer groups and serving figures are one file per model
(``model_files``, ``model_path``), fetched when a reader asks about it; a page holds only the case it opens on. ``answer`` (answer.py) computes what the calculator shows for one case
with the calculation the tables use (calc/memory.py, calc/attention.py,
calc/lookup.py), formatted by the tables' ``Formatter`` and ``explain``.
templates/static/calculator.js evaluates the same formula over the data; the
page is rendered with ``answer`` for its default case, and the tests hold the
script's answers to this module's and to every table cell they share.

An answer is plain JSON: the memory lines (each the figure's label, value and
arithmetic), the KV cache per token, every offer that holds the need in the
order the site's selection rule prefers them, and the choice (or the nodes it
would take).
"""

from .answer import answer
from .case import CUSTOM, INFERENCE, Case, Custom, need_of
from .data import MODEL_FOLDER, calculator_data, calculator_file, calculator_path, model_file, model_files, model_path
from .markup import answer_html, calculator_block

__all__ = ["CUSTOM", "INFERENCE", "MODEL_FOLDER", "Case", "Custom", "answer", "answer_html", "calculator_block",
           "calculator_data", "calculator_file", "calculator_path", "model_file", "model_files", "model_path",
           "need_of"]

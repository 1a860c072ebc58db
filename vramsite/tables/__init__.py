"""Table objects: built once from the calculation, rendered to HTML and Markdown."""

from .gpus import GPU_TABLES
from .guide import TABLES as GUIDE_TABLES
from .engine_logs import ENGINE_LOG_TABLES
from .history import HISTORY_TABLES
from .measured import MEASURED_TABLES
from .models import MODEL_TABLES
from .serving import SERVING_TABLES
from .model import Cell, Column, Fig, Flag, Inline, Link, Msg, Names, Row, Table, Text, When

ALL_TABLES = {**GUIDE_TABLES, **GPU_TABLES, **MODEL_TABLES, **SERVING_TABLES, **MEASURED_TABLES,
              **ENGINE_LOG_TABLES, **HISTORY_TABLES}
"""Every table content can place by name: {{ table("lookup") }}."""

__all__ = ["ALL_TABLES", "Cell", "Column", "Fig", "Flag", "Inline", "Link", "Msg", "Names", "Row", "Table", "Text", "When"]

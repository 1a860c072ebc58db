"""Every table as JSON and CSV under data/: the Table objects' rows and exact values, linked from each page."""

from __future__ import annotations

import csv
import io
import json
import re
from decimal import Decimal

import pytest

from site_support import XHTML, parse_html
from vramsite.publish.downloads import LOOKUP_FIELDS, csv_fields, neutral_text, table_csv, table_json

CJK = re.compile(r"[\u4e00-\u9fff]")


@pytest.fixture(scope="module")
def built(seed_000_built):
    """The seed 000 site (frozen data): the downloads' particular figures are the seed's."""
    build, files = seed_000_built
    return build, files, {table.id: table for table in build.shown_tables()}


def _table_ids(content: bytes) -> list[str]:
    tree = parse_html(content)
    return [figure.get("id").removeprefix("table-") for figure in tree.iter(f"{XHTML}figure")
            if (figure.get("id") or "").startswith("table-")]


def _guide_tables(built):
    build, files, tables = built
    return [tables[table_id] for table_id in _table_ids(files["en/vram.html"])]


def _expected(cell) -> dict:
    """A cell as the downloads must give it, written out from the Table object."""
    if cell.lookup is not None:
        found, choice = cell.lookup, cell.lookup.choice
        return {"need_gb": found.need.value, "cards": choice.count if choice else None,
                "gpu": choice.gpu.id if choice else None, "price_usd": choice.price.value if choice else None,
                "tight": bool(choice and choice.tight), "nodes": found.nodes.value if found.nodes is not None else None}
    if cell.value is not None:
        return {"value": cell.value.value, "unit": cell.value.unit}
    return {"text": neutral_text(cell.content)}


def _decimal_fields(record: dict) -> dict:
    return {key: Decimal(value) if key in ("need_gb", "price_usd", "value", "nodes") and value not in (None, "")
            else value for key, value in record.items() if key != "flags"}


def test_every_table_on_the_guide_has_both_downloads(built):
    _, files, _ = built
    ids = _table_ids(files["en/vram.html"])
    assert {"precisions", "inference", "context", "finetune", "lookup", "cost", "comparison"} <= set(ids)
    for table_id in ids:
        assert f"data/{table_id}.json" in files and f"data/{table_id}.csv" in files


def test_downloads_are_exactly_the_tables_shown(built):
    _, files, tables = built
    data = {path for path in files if path.startswith("data/")}
    assert data == {f"data/{table_id}.{ext}" for table_id in tables for ext in ("json", "csv")}
    assert "data/prices-a40.json" in data and "data/fits-mi300x.csv" in data


def test_json_rows_and_values_equal_the_table(built):
    _, files, _ = built
    for table in _guide_tables(built):
        record = json.loads(files[f"data/{table.id}.json"].decode("utf-8"))
        assert record["id"] == table.id
        assert [column["key"] for column in record["columns"]] == [column.key for column in table.columns]
        assert [row["key"] for row in record["rows"]] == [row.key for row in table.rows]
        for row, written in zip(table.rows, record["rows"]):
            assert list(written["cells"]) == [column.key for column in table.columns]
            for column, cell in zip(table.columns, row.cells):
                got = written["cells"][column.key]
                assert _decimal_fields(got) == _expected(cell), (table.id, row.key, column.key)
                assert got.get("flags", []) == ([] if cell.lookup is not None else list(cell.flags))


def test_csv_rows_and_values_equal_the_table(built):
    _, files, _ = built
    for table in _guide_tables(built):
        text = files[f"data/{table.id}.csv"].decode("utf-8")
        rows = list(csv.DictReader(io.StringIO(text, newline="")))
        assert [row["key"] for row in rows] == [row.key for row in table.rows]
        for row, written in zip(table.rows, rows):
            for column, cell in zip(table.columns, row.cells):
                expected = _expected(cell)
                if cell.lookup is not None:
                    got = {name: written[f"{column.key}_{name}"] for name in LOOKUP_FIELDS}
                    want = {name: "" if value is None else str(value).lower() if isinstance(value, bool) else value
                            for name, value in expected.items()}
                    want["cards"] = "" if expected["cards"] is None else str(expected["cards"])
                    assert _decimal_fields(got) == want, (table.id, row.key, column.key)
                elif cell.value is not None:
                    assert Decimal(written[column.key]) == expected["value"]
                    assert written[f"{column.key}_unit"] == expected["unit"]
                else:
                    field = f"{column.key}_text" if f"{column.key}_unit" in written else column.key
                    assert written[field] == expected["text"]


def test_the_lookup_grid_in_numbers(built):
    _, files, _ = built
    record = json.loads(files["data/lookup.json"])
    rows = {row["key"]: row["cells"] for row in record["rows"]}
    assert rows["70B"]["infer-int4"] == {"need_gb": rows["70B"]["infer-int4"]["need_gb"], "cards": 1, "gpu": "a40",
                                         "price_usd": "240", "tight": False, "nodes": None}
    assert Decimal(rows["70B"]["infer-int4"]["need_gb"]).quantize(Decimal(1)) == 40
    assert rows["405B"]["full-act"]["nodes"] == 5 and rows["405B"]["full-act"]["gpu"] is None
    table = list(csv.DictReader(io.StringIO(files["data/lookup.csv"].decode(), newline="")))
    row = next(row for row in table if row["key"] == "405B")
    assert row["infer-bf16_cards"] == "8" and row["infer-bf16_gpu"] == "mi300x" and row["full-act_nodes"] == "5"
    cost = {row["key"]: row for row in csv.DictReader(io.StringIO(files["data/cost.csv"].decode(), newline=""))}
    assert cost["a40"]["usd_per_gb_month"] == "5" and cost["a40"]["usd_per_gb_month_unit"] == "USD/GB/month"
    assert cost["mi300x"]["usd_per_gb_month"] == "8.28125"  # exact, not the printed $8.28


def test_downloads_are_language_neutral_and_deterministic(built):
    _, files, tables = built
    for table in tables.values():
        assert table_json(table) == files[f"data/{table.id}.json"] == table_json(table)
        assert table_csv(table) == files[f"data/{table.id}.csv"]
        for ext in ("json", "csv"):
            assert not CJK.search(files[f"data/{table.id}.{ext}"].decode("utf-8")), table.id
        header = next(csv.reader(io.StringIO(files[f"data/{table.id}.csv"].decode(), newline="")))
        assert header == ["key", "header", *(name for name, _, _ in csv_fields(table))]
        assert len(header) == len(set(header))


def test_pages_link_their_tables_downloads(built):
    build, files, _ = built
    for page, prefix in (("en/vram.html", "../"), ("zh-cn/vram.html", "../"), ("en/gpus/a40.html", "../../"),
                         ("en/gpus/index.html", "../../")):
        tree = parse_html(files[page])
        twin = files[page + ".md"].decode()
        figures = [f for f in tree.iter(f"{XHTML}figure") if (f.get("id") or "").startswith("table-")]
        assert figures, page
        for figure in figures:
            table_id = figure.get("id").removeprefix("table-")
            hrefs = [a.get("href") for a in figure.iter(f"{XHTML}a") if a.get("download") is not None]
            assert hrefs == [f"{prefix}data/{table_id}.json", f"{prefix}data/{table_id}.csv"], (page, table_id)
            assert f"[JSON]({prefix}data/{table_id}.json) · [CSV]({prefix}data/{table_id}.csv)" in twin
    assert "下载：" in files["zh-cn/vram.html"].decode() and "Download: " in files["en/vram.html"].decode()

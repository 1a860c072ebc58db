"""Every table as JSON and CSV under data/<language>/: the Table objects' rows, their figures rounded as shown
and exact, their labels in the page's language, linked from each page."""

from __future__ import annotations

import csv
import io
import json
import re
from decimal import Decimal

import pytest

from cli_support import named_models_only
from site_support import XHTML, parse_html
from vramsite.publish.downloads import LOOKUP_FIELDS, csv_fields, table_csv, table_json, table_record
from vramsite.publish.site import SiteBuild
from vramsite.render.calculator import calculator_path
from vramsite.render.inline import InlineRenderer
from vramsite.render.numbers import rounded

CJK = re.compile(r"[\u4e00-\u9fff]")
LANGUAGES = ("en", "zh-cn")


@pytest.fixture(scope="module")
def built(seed_000_built):
    """The seed 000 site (frozen data): the downloads' particular figures are the seed's."""
    build, files = seed_000_built
    return build, files, {table.id: table for table in build.tables.shown()}


def _say(build, segment: str) -> InlineRenderer:
    locale = next(locale for locale in build.data.site.locales if locale.segment == segment)
    return InlineRenderer.plain(build.formatter(locale))


def _table_ids(content: bytes) -> list[str]:
    tree = parse_html(content)
    return [figure.get("id").removeprefix("table-") for figure in tree.iter(f"{XHTML}figure")
            if (figure.get("id") or "").startswith("table-")]


def _guide_tables(built):
    build, files, tables = built
    return [tables[table_id] for table_id in _table_ids(files["en/vram.html"])]


def _shown(figure, say, content=None) -> Decimal:
    decimals = content.decimals if getattr(content, "figure", None) == figure else None
    return rounded(figure.value, say.fmt.spec(figure, decimals))


def _expected(cell, say) -> dict:
    """A cell as the downloads must give it, written out from the Table object."""
    if cell.lookup is not None:
        found, choice = cell.lookup, cell.lookup.choice
        return {"need_gb": _shown(found.need, say), "need_gb_exact": found.need.value,
                "cards": choice.count if choice else None,
                "gpu": choice.gpu.id if choice else None, "price_usd": choice.price.value if choice else None,
                "tight": bool(choice and choice.tight), "nodes": found.nodes.value if found.nodes is not None else None}
    if cell.value is not None:
        return {"value": _shown(cell.value, say, cell.content), "exact": cell.value.value, "unit": cell.value.unit}
    return {"text": str(say(cell.content))}


NUMBERS = ("need_gb", "need_gb_exact", "price_usd", "value", "exact", "nodes")


def _decimal_fields(record: dict) -> dict:
    return {key: Decimal(value) if key in NUMBERS and value not in (None, "")
            else value for key, value in record.items() if key != "flags"}


def test_every_table_on_the_guide_has_both_downloads(built):
    _, files, _ = built
    ids = _table_ids(files["en/vram.html"])
    assert {"precisions", "inference", "context", "finetune", "lookup", "cost", "comparison"} <= set(ids)
    for table_id in ids:
        for segment in LANGUAGES:
            assert f"data/{segment}/{table_id}.json" in files and f"data/{segment}/{table_id}.csv" in files


def test_downloads_are_exactly_the_tables_shown(built):
    _, files, tables = built
    calculators = {calculator_path(segment) for segment in LANGUAGES}  # the calculator's data, not a table's
    data = {path for path in files if path.startswith("data/") and path not in calculators}
    assert data == {f"data/{segment}/{table_id}.{ext}" for table_id in tables for segment in LANGUAGES
                    for ext in ("json", "csv")}
    assert "data/zh-cn/prices-a40.json" in data and "data/en/fits-mi300x.csv" in data


@pytest.mark.parametrize("segment", LANGUAGES)
def test_json_rows_and_values_equal_the_table(built, segment):
    build, files, _ = built
    say = _say(build, segment)
    for table in _guide_tables(built):
        record = json.loads(files[f"data/{segment}/{table.id}.json"].decode("utf-8"))
        assert record["id"] == table.id and record["language"] == say.fmt.locale.tag
        assert [column["key"] for column in record["columns"]] == [column.key for column in table.columns]
        assert [row["key"] for row in record["rows"]] == [row.key for row in table.rows]
        for row, written in zip(table.rows, record["rows"]):
            assert list(written["cells"]) == [column.key for column in table.columns]
            for column, cell in zip(table.columns, row.cells):
                got = written["cells"][column.key]
                assert _decimal_fields(got) == _expected(cell, say), (table.id, row.key, column.key)
                assert got.get("flags", []) == ([] if cell.lookup is not None else list(cell.flags))


@pytest.mark.parametrize("segment", LANGUAGES)
def test_csv_rows_and_values_equal_the_table(built, segment):
    build, files, _ = built
    say = _say(build, segment)
    for table in _guide_tables(built):
        text = files[f"data/{segment}/{table.id}.csv"].decode("utf-8")
        rows = list(csv.DictReader(io.StringIO(text, newline="")))
        assert [row["key"] for row in rows] == [row.key for row in table.rows]
        for row, written in zip(table.rows, rows):
            for column, cell in zip(table.columns, row.cells):
                expected = _expected(cell, say)
                if cell.lookup is not None:
                    got = {name: written[f"{column.key}_{name}"] for name in LOOKUP_FIELDS}
                    want = {name: "" if value is None else str(value).lower() if isinstance(value, bool) else value
                            for name, value in expected.items()}
                    want["cards"] = "" if expected["cards"] is None else str(expected["cards"])
                    assert _decimal_fields(got) == want, (table.id, row.key, column.key)
                elif cell.value is not None:
                    assert Decimal(written[column.key]) == expected["value"]
                    assert Decimal(written[f"{column.key}_exact"]) == expected["exact"]
                    assert written[f"{column.key}_unit"] == expected["unit"]
                else:
                    field = f"{column.key}_text" if f"{column.key}_unit" in written else column.key
                    assert written[field] == expected["text"]


def test_the_lookup_grid_in_numbers(built):
    _, files, _ = built
    record = json.loads(files["data/en/lookup.json"])
    rows = {row["key"]: row["cells"] for row in record["rows"]}
    cell = rows["70B"]["infer-int4"]
    assert cell == {"need_gb": "40", "need_gb_exact": cell["need_gb_exact"], "cards": 1, "gpu": "a40",
                    "price_usd": "240", "tight": False, "nodes": None}
    assert Decimal(cell["need_gb_exact"]) != 40 and Decimal(cell["need_gb_exact"]).quantize(Decimal(1)) == 40
    assert rows["405B"]["full-act"]["nodes"] == 5 and rows["405B"]["full-act"]["gpu"] is None
    table = list(csv.DictReader(io.StringIO(files["data/zh-cn/lookup.csv"].decode(), newline="")))
    row = next(row for row in table if row["key"] == "405B")
    assert row["infer-bf16_cards"] == "8" and row["infer-bf16_gpu"] == "mi300x" and row["full-act_nodes"] == "5"
    cost = {row["key"]: row for row in csv.DictReader(io.StringIO(files["data/en/cost.csv"].decode(), newline=""))}
    assert cost["a40"]["usd_per_gb_month"] == "5.00" and cost["a40"]["usd_per_gb_month_unit"] == "USD/GB/month"
    assert cost["mi300x"]["usd_per_gb_month"] == "8.28"  # as printed, $8.28
    assert cost["mi300x"]["usd_per_gb_month_exact"] == "8.28125"  # the calculation's own figure


def test_downloads_are_deterministic_and_keyed_alike_in_every_language(built):
    build, files, tables = built
    for table in tables.values():
        headers = {}
        for segment in LANGUAGES:
            say = _say(build, segment)
            assert table_json(table, say) == files[f"data/{segment}/{table.id}.json"] == table_json(table, say)
            assert table_csv(table, say) == files[f"data/{segment}/{table.id}.csv"]
            header = next(csv.reader(io.StringIO(files[f"data/{segment}/{table.id}.csv"].decode(), newline="")))
            assert header == ["key", "header", *(name for name, _, _ in csv_fields(table, table_record(table, say)))]
            assert len(header) == len(set(header))
            headers[segment] = header
        assert headers["en"] == headers["zh-cn"], table.id
        keys = {segment: [row["key"] for row in json.loads(files[f"data/{segment}/{table.id}.json"])["rows"]]
                for segment in LANGUAGES}
        assert keys["en"] == keys["zh-cn"], table.id
        assert not CJK.search(files[f"data/en/{table.id}.json"].decode("utf-8")), table.id


def test_the_labels_are_the_pages_own_in_each_language(built):
    """Caption and column headings of each download read as the table on the page of that language."""
    _, files, _ = built
    for segment in LANGUAGES:
        tree = parse_html(files[f"{segment}/vram.html"])
        for figure in tree.iter(f"{XHTML}figure"):
            table_id = (figure.get("id") or "").removeprefix("table-")
            if not figure.get("id", "").startswith("table-"):
                continue
            record = json.loads(files[f"data/{segment}/{table_id}.json"])
            headings = [" ".join("".join(th.itertext()).split()) for th in figure.iter(f"{XHTML}th")
                        if th.get("scope") == "col"]
            assert headings[1:] == [column["label"] for column in record["columns"]], (segment, table_id)
    zh = json.loads(files["data/zh-cn/cost.json"])
    assert zh["caption"] == "每 GB 显存的成本" and zh["columns"][0]["label"] == "显存"


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
            data = f"{prefix}data/{page.partition('/')[0]}/{table_id}"
            assert hrefs == [f"{data}.json", f"{data}.csv"], (page, table_id)
            assert f"[JSON]({data}.json) · [CSV]({data}.csv)" in twin
    assert "下载：" in files["zh-cn/vram.html"].decode() and "Download: " in files["en/vram.html"].decode()


FORMULA_NAMES = ("=HYPERLINK(\"https://evil.example\",\"A40\")", "+A40", "-A40", "@SUM(1)")


@pytest.mark.parametrize("name", FORMULA_NAMES)
def test_a_csv_field_a_spreadsheet_would_run_as_a_formula_is_written_as_text(site_copy, name):
    """A card named like a formula: in every CSV its name follows an apostrophe, the JSON keeps it as it is,
    and negative numbers keep their sign."""
    gpus = named_models_only(site_copy) / "data" / "gpus.yaml"  # the cards' downloads, not every model's page
    text = gpus.read_text(encoding="utf-8")
    gpus.write_text(text.replace("    name: A40\n", f"    name: {json.dumps(name)}\n", 1), encoding="utf-8")
    files = SiteBuild(site_copy).render()
    csv_fields_seen = [field for path, content in files.items() if path.endswith(".csv")
                       for row in csv.reader(io.StringIO(content.decode("utf-8"), newline="")) for field in row]
    assert "'" + name in csv_fields_seen
    assert name not in csv_fields_seen
    assert all(not field.startswith(("=", "+", "@")) for field in csv_fields_seen)
    assert any(re.fullmatch(r"-\d[\d.]*", field) for field in csv_fields_seen)  # a number, its sign as it is
    assert any(name in _texts(json.loads(content)) for path, content in files.items() if path.endswith(".json"))


def _texts(value):
    """Every string in a JSON value."""
    if isinstance(value, str):
        yield value
    elif isinstance(value, dict):
        for item in value.values():
            yield from _texts(item)
    elif isinstance(value, list):
        for item in value:
            yield from _texts(item)

"""No quantity is typed into content: every figure in prose is an expression.

Text outside expressions may hold names with digits (H100, RTX 4090, 70B,
FP8, DFW-1) only where the data itself spells them; any other digit, or a
number word, is a figure that can drift from its formula. Every site is
checked: the repository's own and each one under sites/, each against the
names of its own data folder.
"""

from __future__ import annotations

import re
from functools import lru_cache
from pathlib import Path

import pytest
import yaml

from seed_sites import seed_data_root

ROOT = Path(__file__).resolve().parent.parent
CONTENT_FILES = sorted((ROOT / "content").glob("*/*.md")) + sorted((ROOT / "sites").glob("*/content/*/*.md"))

EXPRESSIONS = re.compile(r"\{\{.*?\}\}|\{%.*?%\}|\{##.*?##\}", re.S)
HEADING_IDS = re.compile(r"\{#[\w-]+\}")
LINK_TARGETS = re.compile(r"\]\([^)]*\)")
CODE = re.compile(r"`[^`]*`")
DIGIT = re.compile(r"[0-9０-９⁰-⁹₀-₉]")
NUMBER_WORDS = {
    "en": re.compile(r"\b(two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|twenty|hundred|"
                     r"thousand|million|twice|double|half|dozen)\b", re.I),
    "zh-cn": re.compile(r"[二三四五六七八九十百千万两双倍半]"),
}


@lru_cache(maxsize=None)
def data_names(root: Path = ROOT) -> list[str]:
    """Every string in a site's data that contains a digit: names, ids, labels, codes."""
    names: set[str] = set()

    def walk(value):
        if isinstance(value, dict):
            for key, item in value.items():
                walk(key)
                walk(item)
        elif isinstance(value, list):
            for item in value:
                walk(item)
        elif isinstance(value, str) and DIGIT.search(value):
            names.add(value)
            names.update(part.strip() for part in re.split(r"\s*/\s*", value) if DIGIT.search(part))

    for path in (root / "data").glob("*.yaml"):
        walk(yaml.safe_load(path.read_text(encoding="utf-8")))
    return sorted(names, key=len, reverse=True)


def prose(text: str) -> str:
    """The words a reader sees that are not computed: expressions, ids, URLs and code removed."""
    body = text.split("\n---\n", 1)[1] if text.startswith("---\n") else text
    for pattern in (EXPRESSIONS, HEADING_IDS, LINK_TARGETS, CODE):
        body = pattern.sub(" ", body)
    return body


def literal_quantities(text: str, language: str, names: list[str]) -> list[str]:
    body = prose(text)
    for name in names:
        body = body.replace(name, " ")
    found = [match.group(0) for match in DIGIT.finditer(body)]
    words = NUMBER_WORDS.get(language)  # a language without a list yet is checked for digits only
    found += [match.group(0) for match in words.finditer(body)] if words else []
    return found


def site_root(path: Path) -> Path:
    """The site a content file belongs to: <root>/content/<language>/<page>.md."""
    return path.parents[2]


@pytest.mark.parametrize("path", CONTENT_FILES, ids=lambda p: p.relative_to(ROOT).as_posix())
def test_no_literal_quantity_in_content(path):
    text = path.read_text(encoding="utf-8")
    names = data_names(site_root(path))
    found = []
    for number, line in enumerate(text.split("\n"), start=1):
        hits = literal_quantities(line, path.parent.name, names)
        found += [f"line {number}: {hit!r} in {line.strip()[:80]!r}" for hit in hits]
    assert not found, "\n".join(found)


@pytest.mark.parametrize("sample,language", [
    ("A 70B model needs 145 GB.", "en"),
    ("about two cards", "en"),
    ("需要三张卡", "zh-cn"),
    ("ZeRO stage 3 offloads", "en"),
])
def test_the_check_finds_typed_quantities(sample, language):
    assert literal_quantities(sample, language, data_names(seed_data_root("000")))


def test_names_from_data_and_expressions_pass():
    sample = "The {{ model('70B').name }} on an H100 SXM in DFW-1 at FP8 needs {{ x | fig }} {#formula}"
    assert literal_quantities(sample, "en", data_names(seed_data_root("000"))) == []


def test_every_site_is_checked_against_its_own_data():
    sites = {site_root(path) for path in CONTENT_FILES}
    assert ROOT in sites and ROOT / "sites" / "quick" in sites
    # a name only the quick site's data holds (as frozen for its seed page) is allowed only there
    assert "Qwen2.5 14B" in data_names(seed_data_root("003"))
    assert "Qwen2.5 14B" not in data_names(seed_data_root("000"))

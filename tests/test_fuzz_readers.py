"""Fuzzing every reader of editors' input: data YAML, pages.yaml, front matter, .po catalogs.

Each target mutates the real files of both sites (bytes, whole lines, one
field's value) and feeds the result to the reader the build uses. Whatever
the input, the reader must either succeed or raise InputError whose every
problem is one line naming the file and a line inside it; never another
exception, never a hang, never a write outside its temporary folder.

The "ci" profile keeps this file to seconds; VRAMSITE_FUZZ=long fuzzes for
minutes (tests/fuzz_support.py).
"""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from cli_support import ROOT
from fuzz_support import fuzz_settings, no_hang, watch_writes
from vramsite.errors import InputError, Problem
from vramsite.load import DATA_FILES, load_site
from vramsite.layout import SiteLayout
from vramsite.load.pages import PAGES_FILE, read_pages
from vramsite.render.content import split_front_matter
from vramsite.render.i18n import load_catalogs

SITES = {"main": ROOT, "quick": ROOT / "sites" / "quick"}

NASTY_VALUES = (
    "&a [*a, *a]", "*a", "&b x", "!!python/object/apply:os.system [id]", "!!binary aGk=", "!!set {a}",
    "[" * 40 + "]" * 40, "{a: {b: {c: {d: {e: {f: {g: {h: {i: {j: {k: {l: {m: {n: {o: {p: {q: 1}}}}}}}}}}}}}}}}}",
    '"A40\\nX"', '"\\u202eA40"', '"\\x00"', "'tab\there'", ".nan", "-.inf", "1e999", "1" * 5000, "0x" + "f" * 200,
    "190:20:30", "1:30.5", "2026-02-30", "2026-13-01", "~", "null", "yes", "no", "{}", "[]", "''", "|\n  two\n  lines",
    ">\n  folded", "- a\n- b", "? [a]\n: b", "<<: {a: 1}", "-1", "0", "0.001", "1e-9", "99.9999", "4097", "1_000",
    "%YAML 1.1", "---", "...", "@at", "`tick", "#", ": :", "a: b: c",
)
YAML_ALPHABET = st.sampled_from(list("&*!|>{}[],:-?#'\"\\%@` \t\nxyz019.e_+~"))
VALUES = st.one_of(
    st.sampled_from(NASTY_VALUES),
    st.integers(-(10**40), 10**40).map(str),
    st.floats(allow_nan=True, allow_infinity=True).map(repr),
    st.text(YAML_ALPHABET, max_size=24),
    st.text(max_size=12),
)


@st.composite
def mutated(draw, original: bytes, value_marker: bytes = b": ") -> bytes:
    """``original`` after one to three random edits: bytes, whole lines, or one field's value."""
    lines = original.split(b"\n")
    for _ in range(draw(st.integers(1, 3))):
        kind = draw(st.sampled_from(("value", "value", "byte", "insert", "delete", "duplicate", "swap", "truncate")))
        at = draw(st.integers(0, max(len(lines) - 1, 0)))
        if kind == "value":
            fields = [index for index, line in enumerate(lines) if value_marker in line and not line.lstrip().startswith(b"#")]
            if fields:
                index = draw(st.sampled_from(fields))
                head = lines[index].split(value_marker, 1)[0]
                lines[index] = head + value_marker + draw(VALUES).encode("utf-8", "surrogatepass")
        elif kind == "byte" and lines:
            line = bytearray(lines[at])
            position = draw(st.integers(0, len(line)))
            line[position:position + draw(st.integers(0, 2))] = draw(st.binary(min_size=0, max_size=3))
            lines[at] = bytes(line)
        elif kind == "insert":
            lines.insert(at, draw(VALUES).encode("utf-8", "surrogatepass"))
        elif kind == "delete" and lines:
            del lines[at]
        elif kind == "duplicate" and lines:
            lines.insert(at, lines[at])
        elif kind == "swap" and len(lines) > 1:
            other = draw(st.integers(0, len(lines) - 1))
            lines[at], lines[other] = lines[other], lines[at]
        elif kind == "truncate":
            lines = lines[:at]
    return b"\n".join(lines)


def assert_located(error: InputError, files: dict[str, bytes]) -> None:
    """Every problem names one of ``files`` and a line inside it, on one line of text."""
    assert error.problems, "an InputError must say what is wrong"
    for problem in error.problems:
        assert isinstance(problem, Problem)
        assert problem.file in files, f"{problem} names a file it was not given"
        assert problem.line is not None, f"{problem} names no line"
        assert 1 <= problem.line <= files[problem.file].count(b"\n") + 1, f"{problem}: line outside the file"
        assert "\n" not in str(problem) and "Traceback" not in str(problem)


def read_or_refuse(read, folder: Path, files: dict[str, bytes]) -> None:
    """Run ``read()``: it may succeed, or fail with located problems, and nothing else, and write nothing."""
    with watch_writes(folder) as writes, no_hang():
        try:
            read()
        except InputError as error:
            assert_located(error, files)
    assert not writes, f"a reader wrote outside its folder: {writes}"


@pytest.fixture(scope="module")
def sites(tmp_path_factory) -> dict[str, Path]:
    """A copy of each site's data/, content/ and locales/, to mutate one file at a time."""
    copies = {}
    for site_name, source in SITES.items():
        target = tmp_path_factory.mktemp(site_name)
        for name in ("data", "content", "locales"):
            shutil.copytree(source / name, target / name)
        copies[site_name] = target
    return copies


def _site_and_file(names):
    return st.tuples(st.sampled_from(sorted(SITES)), st.sampled_from(names))


def _swap_in(site: Path, relative: str, text: bytes):
    """Write ``text`` as ``relative`` in ``site``; return the bytes it replaced, to put back."""
    path = site / relative
    original = path.read_bytes()
    path.write_bytes(text)
    return original


@fuzz_settings()
@given(choice=_site_and_file([f"data/{name}.yaml" for name in DATA_FILES]), data=st.data())
def test_data_files_load_or_fail_with_located_problems(sites, choice, data):
    site_name, relative = choice
    site = sites[site_name]
    text = data.draw(mutated((site / relative).read_bytes()))
    original = _swap_in(site, relative, text)
    try:
        files = {f"data/{name}.yaml": (site / f"data/{name}.yaml").read_bytes() for name in DATA_FILES}
        read_or_refuse(lambda: load_site(site), site, files)
    finally:
        (site / relative).write_bytes(original)


@fuzz_settings()
@given(site_name=st.sampled_from(sorted(SITES)), data=st.data())
def test_pages_file_reads_or_fails_with_located_problems(sites, site_name, data):
    site = sites[site_name]
    site_data = load_site(site)
    text = data.draw(mutated((site / PAGES_FILE).read_bytes()))
    original = _swap_in(site, PAGES_FILE, text)
    try:
        read_or_refuse(lambda: read_pages(site, site_data), site, {PAGES_FILE: text})
    finally:
        (site / PAGES_FILE).write_bytes(original)


CONTENT_FILES = sorted(path for site in SITES.values() for path in site.glob("content/*/*.md"))


@fuzz_settings()
@given(source=st.sampled_from(CONTENT_FILES), data=st.data())
def test_front_matter_reads_or_fails_with_located_problems(sites, source, data):
    relative = f"content/{source.parent.name}/{source.name}"
    head, _, _ = source.read_bytes().partition(b"\n---\n")
    text = data.draw(mutated(head + b"\n---\n")).decode("utf-8", "replace") + "Body {{ 1 }}\n"
    folder = next(iter(sites.values()))
    read_or_refuse(lambda: split_front_matter(text, relative), folder, {relative: text.encode("utf-8")})


def _catalogs(site: Path) -> list[str]:
    return sorted(path.relative_to(site).as_posix() for path in site.glob("locales/*/LC_MESSAGES/messages.po"))


@fuzz_settings()
@given(choice=_site_and_file(sorted(set(_catalogs(ROOT)))), data=st.data())
def test_catalogs_read_or_fail_with_located_problems(sites, choice, data):
    site_name, relative = choice
    site = sites[site_name]
    if not (site / relative).is_file():
        site = sites["main"]
    locales = load_site(site).site.locales
    text = data.draw(mutated((site / relative).read_bytes(), value_marker=b" \""))
    original = _swap_in(site, relative, text)
    try:
        read_or_refuse(lambda: load_catalogs(SiteLayout(site), locales), site, {relative: text})
    finally:
        (site / relative).write_bytes(original)

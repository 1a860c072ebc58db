"""Fuzzing the listing reader: an export is untrusted input.

Each example mutates one of the kept exports (tests/fixtures/listings/) and reads it as the import does.
Whatever the bytes, reading either gives listings and problems or raises InputError, and every problem is
one line naming the export and a line inside it; never another exception, never a hang.
"""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from cli_support import ROOT
from fuzz_support import fuzz_settings, no_hang
from vramsite.errors import InputError
from vramsite.listings.cards import card_names
from vramsite.listings.command import read_snapshot

LISTINGS = ROOT / "tests" / "fixtures" / "listings"
EXPORTS = ["november.csv", "november.jsonl", "today.csv", "today.jsonl"]
PIECES = st.sampled_from([b",", b'"', b"\n", b"\r\n", b"{", b"}", b"[", b":", b"\x00", b"\xff", b"\xe2\x80\xae",
                          b"-", b".", b"1e9", b"NaN", b"null", b"true", b"\t", b"#", b" ", b"0", b"9" * 40,
                          b'"gpus": 1, "gpus": 2', b"machine_id", b"# snapshot: 2026-02-30 25:61 UTC\n"])
NAMES, _ = card_names(ROOT / "sites" / "quick")
CARDS = sorted(set(NAMES.values()))


@st.composite
def mutated(draw, original: bytes) -> bytes:
    """``original`` with a few of its bytes replaced by pieces that mean something to CSV or JSON."""
    text = bytearray(original)
    for _ in range(draw(st.integers(1, 6))):
        start = draw(st.integers(0, len(text)))
        end = min(len(text), start + draw(st.integers(0, 12)))
        text[start:end] = draw(PIECES)
    return bytes(text)


@fuzz_settings()
@given(name=st.sampled_from(EXPORTS), data=st.data())
def test_any_export_is_read_or_refused_with_located_problems(tmp_path_factory, name, data):
    content = data.draw(mutated((LISTINGS / name).read_bytes()))
    path = tmp_path_factory.mktemp("export") / name
    path.write_bytes(content)
    lines = content.count(b"\n") + 1
    with no_hang():
        try:
            _export, _rows, _snapshot, problems = read_snapshot(path, NAMES, CARDS)
        except InputError as error:
            problems = error.problems
    for problem in problems:
        assert problem.file == str(path) and "\n" not in str(problem), problem
        assert problem.line is None or 1 <= problem.line <= lines, problem

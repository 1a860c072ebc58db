"""Hostile input, round two: sources read through links, and content that would publish live HTML or script.

End to end where the case is about what ``build.py build`` does (the pattern of
tests/bad_input_support.py: exit status 1, one located line, the previous site
kept byte for byte); unit tests for the variants of each mechanism.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path

import pytest

from bad_input_support import EDITED, At, Bad, Edit, built_site, check_refused_and_kept, site  # noqa: F401
from cli_support import ROOT, run_build
from seed_sites import assemble_seed_site
from vramsite.errors import InputError
from vramsite.load import source_read
from vramsite.load.source_read import CONTENT, DATA, read_source

PO_EN = "locales/en/LC_MESSAGES/messages.po"


# -- sources are read inside the site, regular files only, bounded -------------------------------------------------


@dataclass(frozen=True)
class Link:
    """Replace ``file`` by a symbolic link to ``target``; ``relative``: the link climbs there by '..' from the
    file's folder, however deep the site lies."""

    file: str
    target: str
    relative: bool = False

    def apply(self, site: Path) -> int:
        path = site / self.file
        path.unlink(missing_ok=True)
        path.symlink_to(os.path.relpath(self.target, path.parent) if self.relative else self.target)
        return 0


@dataclass(frozen=True)
class Fifo:
    """Replace ``file`` by a named pipe, which blocks whoever opens it to read until someone writes."""

    file: str

    def apply(self, site: Path) -> int:
        path = site / self.file
        path.unlink(missing_ok=True)
        os.mkfifo(path)
        return 0


OUTSIDE = "outside the site's folder; a source must be a file inside the site"

SOURCE_CASES = [
    Bad("content linked to /dev/zero", (Link("content/en/pricing.md", "/dev/zero"),),
        "content/en/pricing.md", None, "", f"is a link to '/dev/zero', {OUTSIDE}"),
    Bad("data linked to /etc/passwd", (Link("data/discounts.yaml", "/etc/passwd"),),
        "data/discounts.yaml", None, "", f"is a link to '/etc/passwd', {OUTSIDE}"),
    Bad("a catalog linked to /etc/passwd", (Link(PO_EN, "/etc/passwd"),),
        PO_EN, None, "", f"is a link to '/etc/passwd', {OUTSIDE}"),
    Bad("a layout linked out of the site", (Link("templates/page.md", "/etc/passwd", relative=True),),
        "templates/page.md", None, "", f"is a link to '/etc/passwd', {OUTSIDE}"),
    Bad("an asset linked out of the site", (Link("templates/static/extra.css", "/etc/passwd"),),
        "templates/static/extra.css", None, "", f"is a link to '/etc/passwd', {OUTSIDE}"),
    Bad("content that is a FIFO", (Fifo("content/en/pricing.md"),),
        "content/en/pricing.md", None, "", "is a FIFO (named pipe), not a regular file"),
    Bad("a data file that is a FIFO", (Fifo("data/gpus.yaml"),),
        "data/gpus.yaml", None, "", "is a FIFO (named pipe), not a regular file"),
]


@pytest.mark.parametrize("case", SOURCE_CASES, ids=[case.name for case in SOURCE_CASES])
def test_a_source_that_leaves_the_site_or_is_no_file_is_refused_at_once(site, case):
    started = time.monotonic()
    check_refused_and_kept(site, case)
    assert time.monotonic() - started < 60, "the build waited on the file"


def test_nothing_of_a_file_outside_the_site_is_quoted(site):
    """/etc/passwd, once printed line by line by the catalog's reader, is not read at all."""
    Link(PO_EN, "/etc/passwd").apply(site)
    run = run_build(site)
    assert run.returncode == 1 and "root:" not in run.stderr and len(run.stderr.splitlines()) == 2, run.stderr


def test_a_device_is_refused_without_reading_it():
    with pytest.raises(InputError) as refused:
        read_source(Path("/dev/zero"), "/dev/zero", CONTENT)
    assert str(refused.value) == "/dev/zero: is a character device, not a regular file; give a plain file"


def test_a_file_past_its_kind_s_bound_is_refused_and_not_read_whole(tmp_path, monkeypatch):
    monkeypatch.setitem(source_read.LIMITS, DATA, 1000)
    (tmp_path / "data").mkdir()
    (tmp_path / "data" / "gpus.yaml").write_bytes(b"x" * 1001)
    with pytest.raises(InputError) as refused:
        read_source(tmp_path / "data" / "gpus.yaml", "data/gpus.yaml", DATA)
    assert "data/gpus.yaml: is larger than 0.001 MB" in str(refused.value)
    (tmp_path / "data" / "gpus.yaml").write_bytes(b"x" * 1000)
    assert read_source(tmp_path / "data" / "gpus.yaml", "data/gpus.yaml", DATA) == b"x" * 1000


def test_a_link_that_stays_inside_the_site_is_read(tmp_path):
    (tmp_path / "data").mkdir()
    (tmp_path / "data" / "shared.yaml").write_text("a: 1\n")
    (tmp_path / "data" / "gpus.yaml").symlink_to("shared.yaml")
    assert read_source(tmp_path / "data" / "gpus.yaml", "data/gpus.yaml", DATA) == b"a: 1\n"


def test_a_path_already_resolved_out_of_the_site_is_refused(tmp_path):
    """A caller that followed the link itself (layers() resolves) hands over a path that does not end in the name."""
    with pytest.raises(InputError, match="is a link to '/etc/passwd'"):
        read_source(Path("/etc/passwd"), PO_EN, DATA)


# -- content publishes nothing live ----------------------------------------------------------------------------------


def edit(file, old, new):
    return (Edit(file, old, new),)


CATALOGUE_LINK = '[GPU catalogue]({{ link("gpus", "index") }}).'
PRICING = "content/en/pricing.md"

CONTENT_CASES = [
    Bad("a script in content", edit(PRICING, CATALOGUE_LINK, CATALOGUE_LINK + "\n\n<script>alert(1)</script>"),
        PRICING, At("<script>"), "", "raw HTML '<script>' is not allowed in content: a page runs no script of its own"),
    Bad("an entity-encoded javascript: link in raw HTML",
        edit(PRICING, CATALOGUE_LINK, CATALOGUE_LINK + ' <a href="jav&#x61;script:alert(1)">x</a>'),
        PRICING, At("<a href="), "", "is not allowed in content: href 'javascript:alert(1)': a link is relative"),
    Bad("an event handler on the engine's own span",
        edit(PRICING, CATALOGUE_LINK, CATALOGUE_LINK + ' <span class="fig" onmouseover="alert(1)">x</span>'),
        PRICING, At('<span class="fig"'), "", "attribute 'onmouseover' is none of the engine's"),
    Bad("a Markdown link to javascript:", edit(PRICING, CATALOGUE_LINK, CATALOGUE_LINK + " [x](javascript:alert(1))"),
        PRICING, At("javascript:"), "", "link to 'javascript:alert(1)' is not allowed in content"),
    Bad("a data: image", edit(PRICING, CATALOGUE_LINK, CATALOGUE_LINK + "\n\n![x](data:image/png;base64,AAAA)"),
        PRICING, At("data:image"), "", "image to 'data:image/png;base64,AAAA' is not allowed in content"),
    Bad("a link's anchor that breaks out of the link",
        edit(PRICING, CATALOGUE_LINK, '[GPU catalogue]({{ link("gpus", "index", anchor=\'"><img src=x onerror=alert(1)>\') }}).'),
        PRICING, EDITED, "", "anchor '\"><img src=x onerror=alert(1)>' is no heading id"),
    Bad("a script in a page's title", edit(PRICING, "title: Pricing\n", "title: Pricing <script>alert(1)</script>\n"),
        PRICING, EDITED, "", "raw HTML '<script>' is not allowed in content"),
]


@pytest.mark.parametrize("case", CONTENT_CASES, ids=[case.name for case in CONTENT_CASES])
def test_content_that_would_publish_live_html_or_script_is_refused_at_its_line(site, case):
    check_refused_and_kept(site, case)


# -- the minor ones --------------------------------------------------------------------------------------------------


YAML_CASES = [
    Bad("a memory size written as YAML 1.1 octal", edit("data/gpus.yaml", "    memory_gb: 192\n", "    memory_gb: 0300\n"),
        "data/gpus.yaml", EDITED, "gpus[mi300x].memory_gb",
        "'0300' is read as 192 by YAML 1.1's rules for octal, base-60, hexadecimal and _ numbers"),
]


@pytest.mark.parametrize("case", YAML_CASES, ids=[case.name for case in YAML_CASES])
def test_a_number_yaml_readers_disagree_on_is_refused_not_read_silently(site, case):
    check_refused_and_kept(site, case)


def test_a_missing_stylesheet_is_named_not_a_key_error(tmp_path):
    """The engine's templates/static/style.css, which the 404 page carries inline, deleted: one located line."""
    engine = tmp_path / "engine"
    shutil.copytree(ROOT / "vramsite", engine / "vramsite", ignore=shutil.ignore_patterns("__pycache__"))
    for name in ("templates", "locales"):
        shutil.copytree(ROOT / name, engine / name)
    shutil.copy(ROOT / "build.py", engine / "build.py")
    (engine / "templates" / "static" / "style.css").unlink()
    site = assemble_seed_site(tmp_path / "site", "003")
    run = subprocess.run([sys.executable, str(engine / "build.py"), "build", "--site", str(site), "--out",
                          str(tmp_path / "out")], capture_output=True, text=True, timeout=300)
    assert run.returncode == 1 and "Traceback" not in run.stderr, run.stderr
    assert run.stderr.splitlines() == [
        "templates/static/style.css: is missing; every site needs it (the 404 page carries it inline): restore the "
        "engine's stylesheet", "1 problem; nothing was written."]


def test_a_long_bad_value_is_quoted_as_a_short_excerpt(site):
    """A value the schema refuses is quoted in its message: a few dozen characters of it, on one line."""
    path = site / "data" / "discounts.yaml"
    path.write_text('multi_card: "' + "root:x:0:0:root:/root:/bin/bash\\n" * 200 + '"\n', encoding="utf-8")
    run = run_build(site)
    assert run.returncode == 1, run.stderr
    first = run.stderr.splitlines()[0]
    assert first.startswith("data/discounts.yaml:1: multi_card: expected a list, got text 'root:x:0:0:root:/root:/bin/bash\\n")
    assert first.endswith("…'") and len(first) < 140

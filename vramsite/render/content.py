"""Content files: front matter plus Markdown whose figures are expressions.

``content/<segment>/<page>.md``::

    ---
    title: How much VRAM do I need?
    description: ...
    ---
    A 70B model at FP8 needs about {{ model("70B").inference("fp8").total | fig }}.

Each file is compiled once (a Jinja template in the sandbox of ``sandbox.py``) and rendered twice:
for the HTML page, where figures carry their derivation, and for the
Markdown twin. Errors name the content file and its line.
"""

from __future__ import annotations

import hashlib
import marshal
import os
import sys
import time
from dataclasses import dataclass
from pathlib import Path

import jinja2
from jinja2 import StrictUndefined, TemplateNotFound, TemplateSyntaxError
from jinja2.exceptions import SecurityError
from markupsafe import Markup

from ..errors import InputError, Problem, UnknownId
from ..load.source_read import CONTENT, read_source_text, universal_newlines
from ..load.text import clipped, shown, text_problem
from ..load.yaml_source import YamlDocument, parse_yaml
from ..signed_cache import read_signed, write_signed
from .markdown import markdown_plain_text
from .sandbox import ContentEnvironment, LimitExceeded

FRONT_MATTER_KEYS = {"title": True, "description": True, "lead": False}
"""Front matter fields: name -> required."""


@dataclass(frozen=True)
class ContentFile:
    name: str
    """Path as messages show it: content/en/vram.md."""
    meta: dict[str, str]
    body_line: int
    """Line of the file where the body starts (for messages)."""
    template: object
    """The compiled body."""
    meta_templates: dict[str, object]


def content_environment() -> ContentEnvironment:
    """One environment for all content: the allowlist sandbox, autoescaped, strict about undefined names.

    Comments are {## ... ##}: {#id} belongs to headings (see markdown.heading_ids).
    """
    return ContentEnvironment(autoescape=True, undefined=StrictUndefined, keep_trailing_newline=True,
                              trim_blocks=True, lstrip_blocks=True,
                              comment_start_string="{##", comment_end_string="##}")


def compile_cached(env: ContentEnvironment, source: str, cache: Path | None):
    """``env.from_string(source)``, keeping the compiled code for the next render and the next build.

    Compiling is the slowest step of rendering a long page; the code depends only
    on the source, Jinja's version, Python's version, the environment's syntax
    and the sandbox's guards (``code_version``). This process keeps what it compiled or took (``_COMPILED``):
    a second site rendered in it, such as the copy an import or a diff builds, compiles nothing again.
    ``cache`` keeps it between processes; entries are signed, as every cache file is. Taking an entry marks it
    used (its mtime), so that ``prune_unused_once`` keeps it.
    """
    key = hashlib.sha256("\0".join((sys.version, jinja2.__version__, env.code_version, env.comment_start_string,
                                     str(env.trim_blocks), str(env.lstrip_blocks), str(env.optimized), source)).encode()).hexdigest()
    path = None if cache is None else cache / f"{key}{COMPILED_SUFFIX}"
    code = _COMPILED.get(key)
    if code is None:
        code = None if path is None else _kept_code(path)
        if code is None:
            code = env.compile(source)
            _keep(path, code)
        _COMPILED[key] = code
    elif path is not None and not _mark_used(path):
        _keep(path, code)
    return env.template_class.from_code(env, code, env.make_globals(None))


class HeldCode(dict):
    """Compiled code a process holds, at most ``size`` entries, the oldest dropped first: a preview server adds
    one for each edit of a source."""

    def __init__(self, size: int = 1024):
        super().__init__()
        self.size = size

    def __setitem__(self, key, code) -> None:
        if key not in self and len(self) >= self.size:
            del self[next(iter(self))]
        super().__setitem__(key, code)


_COMPILED = HeldCode()
"""Compiled content this process holds, by the key of ``compile_cached``."""


def _keep(path: Path | None, code) -> None:
    """Write ``code`` to the cache file ``path``; a cache that cannot be written only loses the next build's
    shortcut."""
    if path is None:
        return
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        prune_unused_once(path.parent)
        write_signed(path, marshal.dumps(code))
    except OSError:
        pass


def _kept_code(path: Path):
    """The code kept at ``path``, if this machine signed it (``signed_cache``): a planted or copied file is
    never unmarshalled, its source is compiled again."""
    kept = read_signed(path)
    if kept is None:
        return None
    try:
        code = marshal.loads(kept)
    except (ValueError, EOFError, TypeError):
        return None
    _mark_used(path)
    return code


COMPILED_SUFFIX = ".code"
UNUSED_FOR_S = 30 * 24 * 3600
"""Compiled content no build has used for this long is removed: every edit of a content file adds an entry
(the old source's stays, named by its digest), which would otherwise pile up in an editor's or CI's cache."""

_pruned: set[str] = set()
"""The cache folders this process has pruned already."""


def _mark_used(path: Path) -> bool:
    """Whether ``path`` is there, now marked used."""
    try:
        os.utime(path)
    except OSError:
        return False
    return True


def prune_unused_once(cache: Path, now: float | None = None) -> list[str]:
    """Remove the compiled content in ``cache`` unused for ``UNUSED_FOR_S``, the first time this process adds
    an entry there (not for each of a cold build's files); the names removed. Only this module's entries:
    the layouts' files in the same folder are Jinja's, one per template, replaced in place."""
    if str(cache) in _pruned:
        return []
    _pruned.add(str(cache))
    oldest = (time.time() if now is None else now) - UNUSED_FOR_S
    removed = []
    try:
        entries = list(os.scandir(cache))
    except OSError:
        return []
    for entry in entries:
        try:
            if entry.name.endswith(COMPILED_SUFFIX) and entry.stat().st_mtime < oldest:
                os.remove(entry.path)
                removed.append(entry.name)
        except OSError:  # gone already (the other language's worker), or not ours to remove
            continue
    return removed


def read_content(path: Path, name: str, env: ContentEnvironment, cache: Path | None = None) -> ContentFile:
    text = universal_newlines(read_source_text(path, name, CONTENT))
    meta, body, body_line = split_front_matter(text, name)
    template = _compile(env, body, cache, name, body_line)
    meta_templates = {key: _compile(env, value, cache, name, 2 + index)
                      for index, (key, value) in enumerate(meta.items())}
    return ContentFile(name=name, meta=meta, body_line=body_line, template=template, meta_templates=meta_templates)


def _compile(env: ContentEnvironment, source: str, cache: Path | None, name: str, first_line: int):
    """One part of a content file, compiled; ``first_line``: the file's line where that part starts."""
    try:
        return compile_cached(env, source, cache)
    except TemplateSyntaxError as error:
        line = first_line + (error.lineno or 1) - 1
        raise InputError([Problem(name, line, "", f"template syntax error: {error.message}")]) from None
    except (ValueError, RecursionError, SyntaxError, MemoryError) as error:  # a literal or nesting Python refuses
        message = " ".join(str(error).split()) or type(error).__name__
        raise InputError([Problem(name, first_line, "", f"cannot compile this text: {message}")]) from None


def split_front_matter(text: str, name: str) -> tuple[dict, str, int]:
    """The front matter's fields, the body, and the line the body starts at."""
    if not text.startswith("---\n"):
        raise InputError([Problem(name, 1, "", "missing front matter: start the file with a --- line")])
    end = text.find("\n---\n", 3)
    if end < 0:
        raise InputError([Problem(name, 1, "", "front matter is not closed by a --- line")])
    meta = _front_matter(text[4:end], name)
    body_line = text[: end + 5].count("\n") + 1
    return meta, text[end + 5:], body_line


def _front_matter(raw: str, name: str) -> dict[str, str]:
    """Check the key: value lines between the --- lines (they start at line 2)."""
    if all(not line.strip() or line.lstrip().startswith("#") for line in raw.split("\n")):
        document = YamlDocument(name, {})
    else:
        document = parse_yaml(raw, name, first_line=2)
    if not isinstance(document.value, dict):
        raise InputError([Problem(name, 2, "", "front matter must be key: value lines")])
    problems = []
    for key, value in document.value.items():
        line, field = document.line_of((key,)), shown(key)
        if key not in FRONT_MATTER_KEYS:
            problems.append(Problem(name, line, field, f"unknown key {key!r} (allowed: {', '.join(FRONT_MATTER_KEYS)})"))
        elif not isinstance(value, str):
            problems.append(Problem(name, line, field, "expected text"))
        elif text_problem(value):
            problems.append(Problem(name, line, field, text_problem(value)))
    for key, required in FRONT_MATTER_KEYS.items():
        if required and key not in document.value:
            problems.append(Problem(name, 1, key, f"missing required field {key!r}"))
    if problems:
        raise InputError(problems)
    return document.value


def render_content(file: ContentFile, template, context: dict, first_line: int | None = None) -> str:
    """Render one compiled part of a content file, turning failures into a Problem."""
    try:
        return template.render(context)
    except InputError:
        raise
    except Exception as error:  # noqa: BLE001 - every failure becomes a located message
        line = _template_line(error)
        base = file.body_line if first_line is None else first_line
        where = None if line is None else base + line - 1
        layout, layout_line = _layout_frame(error)
        if isinstance(error, (TemplateSyntaxError, TemplateNotFound)) or layout is not None:
            # The failure is in a layout template the content called (a table's partial): name that file.
            called = file.name if where is None else f"{file.name}:{where}"
            raise InputError([layout_problem(error, "", called_from=called)]) from None
        raise InputError([Problem(file.name, where, "", _describe(error))]) from None


def _template_line(error: BaseException) -> int | None:
    """The line inside the rendered template where ``error`` was raised."""
    line = None
    traceback = error.__traceback__
    while traceback is not None:
        if traceback.tb_frame.f_code.co_filename == "<template>":
            line = traceback.tb_lineno
        traceback = traceback.tb_next
    return line


def _layout_frame(error: BaseException) -> tuple[str | None, int | None]:
    """The layout template file (templates/...) and line where ``error`` was raised, if it was in one."""
    found: tuple[str | None, int | None] = (None, None)
    traceback = error.__traceback__
    while traceback is not None:
        filename = traceback.tb_frame.f_code.co_filename
        if filename.endswith((".html", ".md", ".xml", ".txt")):
            found = (_template_file(filename, None), traceback.tb_lineno)
        traceback = traceback.tb_next
    return found


def _template_file(filename: str | None, name: str | None) -> str:
    """'templates/partials/table.html' from a template's file path or its loader name."""
    if filename and "/templates/" in filename.replace("\\", "/"):
        return "templates/" + filename.replace("\\", "/").rsplit("/templates/", 1)[1]
    return f"templates/{name}" if name else "templates"


def layout_problem(error: BaseException, template_name: str, called_from: str | None = None) -> Problem:
    """One line for a failure in a layout template: its file and line, and what went wrong."""
    suffix = f" (used by {called_from})" if called_from else ""
    if isinstance(error, TemplateSyntaxError):  # a fault of the template itself, whoever used it
        return Problem(_template_file(error.filename, error.name or template_name), error.lineno, "",
                       f"template syntax error: {error.message}")
    if isinstance(error, TemplateNotFound):
        return Problem(f"templates/{template_name}" if template_name else "templates", None, "",
                       f"template {error.name!r} not found in templates/{suffix}")
    name, line = _layout_frame(error)
    return Problem(name or _template_file(None, template_name), line, "",
                   f"template error: {_describe(error)}{suffix}")


def _describe(error: BaseException) -> str:
    return clipped(_whole_description(error))


def _whole_description(error: BaseException) -> str:
    if isinstance(error, UnknownId):
        return f"expression names {error}"
    if isinstance(error, SecurityError):
        return f"not allowed in content: {error}"
    if isinstance(error, LimitExceeded):
        return f"expression does too much: {error}"
    if isinstance(error, RecursionError):
        return "expression failed: macros or loops call themselves too deeply"
    kind = type(error).__name__
    text = str(error) or kind
    if kind == "UndefinedError":
        return f"unknown name in an expression: {text}"
    return f"expression failed: {text}" if kind in ("TypeError", "AttributeError", "ValueError") else f"{kind}: {text}"


def page_meta(file: ContentFile, context: dict) -> dict[str, str]:
    """Front matter values, rendered (a title may hold figures too)."""
    # Rendered with autoescape: Markup, so that layouts do not escape the escaped text again.
    return {key: Markup(render_content(file, template, context, first_line=_meta_line(file, key)).strip())
            for key, template in file.meta_templates.items()}


def html_meta(meta: dict[str, str], markdown) -> dict[str, Markup]:
    """Front matter values (rendered as Markdown text, for the twin) as HTML text: for <title>, <h1>, meta tags."""
    return {key: Markup(markdown_plain_text(markdown, str(value))) for key, value in meta.items()}


def _meta_line(file: ContentFile, key: str) -> int:
    return 2 + list(file.meta).index(key)

"""UI strings: gettext catalogs read straight from the committed .po files.

Strict by default: a msgid a page asks for that is missing, empty or fuzzy in
a language's catalog is a build problem, reported with the catalog's path.
The locale table (URL segment, BCP 47 tag, gettext id) comes from site.yaml
and no id is derived from another.
"""

from __future__ import annotations

import gettext as _gettext
import io
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from babel.messages.pofile import PoFileError, read_po

from ..errors import InputError, Problem
from ..layout import SiteLayout
from ..load.catalog_check import catalog_problems
from ..load.source_read import CATALOG, read_source
from ..load.text import decode_utf8
from ..load.model import LocaleConfig

DOMAIN = "messages"


@dataclass
class Catalog:
    """One language's translations, and what was asked of it that it lacks."""

    locale: LocaleConfig
    path: str
    messages: dict[str, str | tuple[str, ...]]
    fuzzy: set[str]
    lines: dict[str, int]
    plural: Callable[[int], int] = lambda n: 0 if n == 1 else 1
    """Index of the plural form for n (the catalog's Plural-Forms)."""
    missing: set[str] = field(default_factory=set)
    """Every msgid asked for that the catalog could not give."""

    def gettext(self, msgid: str) -> str:
        text = self.messages.get(msgid)
        if isinstance(text, str) and text and msgid not in self.fuzzy:
            return text
        self.missing.add(msgid)
        return msgid

    def ngettext(self, singular: str, plural: str, n: int) -> str:
        forms = self.messages.get(singular)
        if isinstance(forms, tuple) and all(forms) and singular not in self.fuzzy:
            return forms[self.plural(n)]
        self.missing.add(singular)
        return singular if n == 1 else plural

    def problems(self, others: tuple["Catalog", ...] = ()) -> list[Problem]:
        """One problem per msgid asked for and not given; ``others``: catalogs to point at for a missing one."""
        found = []
        for msgid in sorted(self.missing):
            if msgid in self.fuzzy:
                reason = "is marked fuzzy; review it and remove the fuzzy flag"
            elif msgid in self.messages:
                reason = "has an empty translation"
            else:
                reason = "is missing; add it to the catalog"
                having = [other for other in others if other is not self and msgid in other.lines]
                if having:
                    reason += f" (copy the entry from {having[0].path}:{having[0].lines[msgid]})"
            found.append(Problem(self.path, self.lines.get(msgid), f"msgid {msgid!r}", reason))
        return found


def load_catalogs(layout: SiteLayout, locales: tuple[LocaleConfig, ...]) -> dict[str, Catalog]:
    """One catalog per locale segment, from locales/<gettext id>/LC_MESSAGES/messages.po.

    The site's own catalog is laid over the engine's, which holds the UI
    strings: a second site only translates what it says differently (its
    table cells, say) and adds nothing it shares.
    """
    catalogs, problems = {}, []
    for locale in locales:
        relative = f"locales/{locale.gettext}/LC_MESSAGES/{DOMAIN}.po"
        layers = [path for path in layout.layers(relative) if path.is_file()]
        if not layers:
            problems.append(Problem(relative, None, "", f"no catalog for {locale.tag}; create it (copy another language's)"))
            continue
        try:
            read = [_read(path, relative, locale) for path in layers]
        except InputError as error:
            problems.extend(error.problems)
            continue
        except (PoFileError, UnicodeDecodeError, ValueError) as error:
            problems.append(Problem(relative, None, "", f"cannot read the catalog: {error}"))
            continue
        catalogs[locale.segment] = _overlay(read)
    if problems:
        raise InputError(problems)
    return catalogs


def _overlay(layers: list[Catalog]) -> Catalog:
    """The last catalog's entries over the earlier ones'."""
    result = layers[0]
    for layer in layers[1:]:
        fuzzy = (result.fuzzy - set(layer.messages)) | layer.fuzzy
        result = Catalog(locale=layer.locale, path=layer.path, messages={**result.messages, **layer.messages},
                         fuzzy=fuzzy, lines={**result.lines, **layer.lines}, plural=layer.plural)
    return result


def _read(path: Path, relative: str, locale: LocaleConfig) -> Catalog:
    raw = read_source(path, relative, CATALOG)
    text = decode_utf8(raw, relative)
    problems = catalog_problems(text, relative)
    if problems:
        raise InputError(problems)
    po, plural = _parse(raw, relative, locale, text)
    messages, fuzzy, lines = {}, set(), {}
    for message in po:
        if not message.id:
            continue
        key = message.id[0] if isinstance(message.id, tuple) else message.id
        messages[key] = tuple(message.string) if isinstance(message.string, (tuple, list)) else message.string
        if message.fuzzy:
            fuzzy.add(key)
        if message.lineno:
            lines[key] = message.lineno
    return Catalog(locale=locale, path=relative, messages=messages, fuzzy=fuzzy, lines=lines, plural=plural)


def _parse(raw: bytes, relative: str, locale: LocaleConfig, text: str):
    """babel's catalog and its plural function; what babel refuses, at the line it names."""
    try:
        po = read_po(io.BytesIO(raw), locale=locale.gettext, abort_invalid=True)
        plural = _gettext.c2py(po.plural_expr)
        _check_plural(plural, po.num_plurals, relative, text)
        return po, plural
    except PoFileError as error:
        message = str(error).rsplit(" on ", 1)[0]
        raise InputError([Problem(relative, error.lineno + 1, "", f"cannot read the catalog: {message}")]) from None
    except (ValueError, LookupError) as error:  # the header: its charset or Plural-Forms
        raise InputError([Problem(relative, _header_line(text), "", f"cannot read the catalog's header: {error}")]) from None


PLURAL_SAMPLES = (*range(1001), 10**6, 10**9)
"""The counts a catalog's plural rule is tried on: every rule gettext knows changes form below 1000."""


def _check_plural(plural: Callable[[int], int], forms: int, relative: str, text: str) -> None:
    """Refuse, once and at the header, a Plural-Forms rule that picks a form the catalog does not have: each
    ngettext of a page would fail on it otherwise."""
    for count in PLURAL_SAMPLES:
        try:
            index = plural(count)
        except ArithmeticError as error:  # n / 0
            wrong = f"fails for n = {count} ({error})"
        else:
            if 0 <= index < forms:
                continue
            wrong = f"picks form {index} for n = {count}, but the catalog has nplurals={forms} (forms 0 to {forms - 1})"
        raise InputError([Problem(relative, _header_line(text, "Plural-Forms"), "",
                                  f"the catalog's Plural-Forms rule {wrong}; correct the rule")])


def _header_line(text: str, *words: str) -> int:
    for number, line in enumerate(text.split("\n"), start=1):
        if any(word in line for word in words or ("Plural-Forms", "charset")):
            return number
    return 1

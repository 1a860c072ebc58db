"""The UI catalogs: every language says every string, in its own words."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from babel.messages.pofile import read_po

from vramsite.layout import SiteLayout
from vramsite.load import load_site
from vramsite.render import i18n

ROOT = Path(__file__).resolve().parent.parent
CATALOG_SETS = [ROOT / "locales", ROOT / "sites" / "quick" / "locales"]
ENGLISH_WORD = re.compile(r"(?<![{\w])(?!token\b)[a-z]{3,}(?![\w}])")
"""A lower-case English word outside {placeholders}: 'card', 'per'. Names such as QLoRA or ROCm do not
match, nor 'token', which Chinese technical writing keeps as it is."""
FILE_NAME = re.compile(r"\b[\w-]+\.json\b")
"""A file's name, such as config.json, which every language writes as it is."""


def read(path: Path) -> dict[str, object]:
    with path.open("rb") as handle:
        return {message.id if isinstance(message.id, str) else message.id[0]: message.string
                for message in read_po(handle) if message.id}


def effective(folder: Path) -> dict[str, dict]:
    """Each language's strings as a site sees them: its own catalog laid over the engine's."""
    catalogs = {}
    for path in sorted(folder.glob("*/LC_MESSAGES/messages.po")):
        language = path.parent.parent.name
        catalogs[language] = {**read(ROOT / "locales" / language / "LC_MESSAGES" / "messages.po"), **read(path)}
    return catalogs


@pytest.mark.parametrize("folder", CATALOG_SETS, ids=lambda folder: folder.relative_to(ROOT).as_posix())
def test_every_language_has_the_same_strings(folder):
    catalogs = effective(folder)
    assert len(catalogs) >= 2
    ids = [set(messages) for messages in catalogs.values()]
    assert all(found == ids[0] for found in ids), {name: sorted(set(m) ^ ids[0]) for name, m in catalogs.items()}


@pytest.mark.parametrize("folder", CATALOG_SETS, ids=lambda folder: folder.relative_to(ROOT).as_posix())
def test_chinese_strings_are_translated(folder):
    messages = read(folder / "zh_CN" / "LC_MESSAGES" / "messages.po")
    untranslated = []
    for msgid, text in messages.items():
        forms = text if isinstance(text, (list, tuple)) else [text]
        for form in forms:
            if not form or ENGLISH_WORD.search(FILE_NAME.sub("", form)):
                untranslated.append(f"{msgid!r} -> {form!r}")
    assert not untranslated, "\n".join(untranslated)


def test_the_check_finds_an_untranslated_string():
    assert ENGLISH_WORD.search("{n} cards") and not ENGLISH_WORD.search("{n} 张卡")
    assert not ENGLISH_WORD.search("QLoRA") and not ENGLISH_WORD.search("NVLink / NVSwitch")


@pytest.mark.parametrize("site", [".", str(ROOT)])
def test_the_engine_site_reads_each_catalog_once_however_its_folder_is_named(site, monkeypatch):
    monkeypatch.chdir(ROOT)
    read_files = []
    real_read = i18n._read
    monkeypatch.setattr(i18n, "_read", lambda path, *rest: read_files.append(path) or real_read(path, *rest))
    locales = load_site(ROOT).site.locales
    catalogs = i18n.load_catalogs(SiteLayout(Path(site)), locales)
    assert len(read_files) == len(set(read_files)) == len(locales) == len(catalogs)


@pytest.mark.parametrize("rule, wrong", [
    ("nplurals=2; plural=(n + 5);", "picks form 5 for n = 0, but the catalog has nplurals=2 (forms 0 to 1)"),
    ("nplurals=2; plural=(n > 1 ? 2 : 0);", "picks form 2 for n = 2, but the catalog has nplurals=2 (forms 0 to 1)"),
    ("nplurals=2; plural=(1 / n);", "fails for n = 0 (integer division or modulo by zero)"),
])
def test_a_plural_rule_that_picks_no_form_is_one_problem_at_the_header(tmp_path, rule, wrong):
    """Not one IndexError in each content file that shows a plural: the catalog's header, once."""
    name = "locales/en/LC_MESSAGES/messages.po"
    text = (ROOT / name).read_text(encoding="utf-8")
    path = tmp_path / name
    path.parent.mkdir(parents=True)
    path.write_text(text.replace("nplurals=2; plural=(n != 1);", rule), encoding="utf-8")
    english = next(locale for locale in load_site(ROOT).site.locales if locale.gettext == "en")
    with pytest.raises(i18n.InputError) as refused:
        i18n._read(path, name, english)
    line = text[: text.index("Plural-Forms")].count("\n") + 1
    assert [str(problem) for problem in refused.value.problems] == [
        f"{name}:{line}: the catalog's Plural-Forms rule {wrong}; correct the rule"]


def test_a_file_that_is_no_catalog_is_not_printed_back_line_by_line():
    from vramsite.load.catalog_check import MAX_UNREADABLE, catalog_problems

    text = "".join(f"user{number}:x:{number}:{number}::/home/user{number}:/bin/sh\n" for number in range(40))
    problems = catalog_problems(text, "locales/en/LC_MESSAGES/messages.po")
    assert len(problems) == MAX_UNREADABLE + 1
    assert str(problems[-1]) == ("locales/en/LC_MESSAGES/messages.po:6: and 35 more lines no catalog holds; "
                                 "is it the right file?")
    assert all(len(str(problem)) < 160 for problem in problems)

"""Rebuilds that keep the last build's pages: each kind of edit gives the bytes a cold build of it gives."""

from __future__ import annotations

import pickle
import re
import shutil
from pathlib import Path

import pytest

from cli_support import named_models_only
from vramsite.load.reads import EVERY, reading
from vramsite.publish.preview import PreviewSite
from vramsite.publish.site import SiteBuild
from vramsite.render.calculator import model_path
from vramsite.signed_cache import read_signed

ROOT = Path(__file__).resolve().parent.parent
SOURCES = ("data", "content", "templates", "locales")


def _first_number(pattern: str, change):
    """An edit of the first number matched by ``pattern`` (its one group): ``change`` of it."""
    def edit(text: str) -> str:
        edited = re.sub(pattern, lambda found: found[0].replace(found[1], str(change(int(found[1])))), text, count=1)
        assert edited != text, pattern
        return edited
    return edit


def _raise_first(pattern: str, by: int):
    return _first_number(pattern, lambda number: number + by)


def _times_first(pattern: str, by: int):
    return _first_number(pattern, lambda number: number * by)


def _append(line: str):
    return lambda text: text + line


EDITS = {
    "a price": ("data/prices.yaml", _raise_first(r"usd: (\d+)\}", 7)),
    "a price, tenfold": ("data/prices.yaml", _times_first(r"usd: (\d+)\}", 10)),  # other cards win its cells
    "a card's memory": ("data/gpus.yaml", _raise_first(r"\n    memory_gb: (\d+)\n", 16)),
    "a model's params": ("data/models.yaml", _raise_first(r"\n    params_billion: (\d+)\n", 1)),
    "a real model's context": ("data/catalogue.yaml", _raise_first(r"\n    max_context: (\d+)\n", 1024)),
    "a content file": ("content/en/pricing.md", _append("\nOne more sentence for the rebuild.\n")),
    "a template": ("templates/base.html", _append("<!-- one more line -->\n")),
    "a locale catalog": ("locales/en/LC_MESSAGES/messages.po",
                         lambda text: text.replace('msgstr "Discount"', 'msgstr "Volume discount"', 1)),
    "sizing.yaml": ("data/sizing.yaml", _raise_first(r"\n  overhead_gb: (\d+)\n", 1)),
}


@pytest.fixture(scope="module")
def built_once(tmp_path_factory):
    """A copy of the live site (its catalogue cut to the models the rest of its data names), built once with its
    pages kept; and that build's files."""
    site = tmp_path_factory.mktemp("kept")
    for name in SOURCES:
        shutil.copytree(ROOT / name, site / name)
    named_models_only(site)
    build = SiteBuild(site, incremental=True)
    files = build.render()
    assert build.kept == []  # nothing to keep from before the first build
    return site, files


@pytest.fixture(scope="module")
def built_warm(built_once, tmp_path_factory):
    """The kept site after one rebuild, whose records carry the digests of the derived values their pages
    read (a cold build's records go without them); and that rebuild's files."""
    site = tmp_path_factory.mktemp("warm")
    shutil.copytree(built_once[0], site, dirs_exist_ok=True)
    prices = site / "data" / "prices.yaml"
    prices.write_text(_raise_first(r"usd: (\d+)\}", 1)(prices.read_text(encoding="utf-8")), encoding="utf-8")
    files = SiteBuild(site, incremental=True).render()
    return site, files


def _edited_copy(built_once, tmp_path: Path, edit: str) -> Path:
    site, _ = built_once
    copy = tmp_path / "site"
    shutil.copytree(site, copy)  # .cache/pages.pickle too
    path, change = EDITS[edit]
    target = copy / path
    target.write_text(change(target.read_text(encoding="utf-8")), encoding="utf-8")
    return copy


def _differences(kept: dict[str, bytes], cold: dict[str, bytes]) -> list[str]:
    return sorted(path for path in set(kept) | set(cold) if kept.get(path) != cold.get(path))


RENDER_EVERY_PAGE = {"a template", "a locale catalog", "sizing.yaml"}
"""Edits after which every page is rendered again (incremental.py): where the build starts from does not
matter to them, and they start from the first build alone."""
STARTS = [(edit, start) for edit in sorted(EDITS) for start in ("built_once", "built_warm")
          if start == "built_once" or edit not in RENDER_EVERY_PAGE]


@pytest.mark.parametrize("edit, start", STARTS)
def test_a_rebuild_after_an_edit_gives_the_cold_build_of_the_edited_sources(request, tmp_path, edit, start):
    before = request.getfixturevalue(start)
    site = _edited_copy(before, tmp_path, edit)
    rebuild = SiteBuild(site, incremental=True)
    kept = rebuild.render()
    cold = SiteBuild(site).render()
    assert _differences(kept, cold) == []
    assert _differences(cold, before[1]), f"the edit of {edit} changed nothing: the test proves nothing"


@pytest.mark.parametrize("first, then", [("a content file", "a price, tenfold"), ("a price", "a card's memory"),
                                         ("a content file", "a model's params"), ("a price", "a price, tenfold")])
def test_a_rebuild_after_two_edits_in_turn_gives_the_cold_build_of_both(built_once, tmp_path, first, then):
    """The second rebuild starts from pages the first kept, whose tables were counted again outside any page:
    what those tables read must still reach the pages rendered after them."""
    site = _edited_copy(built_once, tmp_path, first)
    SiteBuild(site, incremental=True).render()
    path, change = EDITS[then]
    (site / path).write_text(change((site / path).read_text(encoding="utf-8")), encoding="utf-8")
    rebuild = SiteBuild(site, incremental=True)
    assert _differences(rebuild.render(), SiteBuild(site).render()) == []
    assert rebuild.kept, "every page was rendered: the test proves nothing"


def test_each_rebuild_of_a_week_of_edits_gives_the_cold_build(built_once, tmp_path):
    """Edits one after another, each rebuild starting from what the one before kept: each gives a cold build's
    files, and the later ones keep pages. (Each kind of edit from a first build, and pairs of them, are the
    tests above.)"""
    site = tmp_path / "site"
    shutil.copytree(built_once[0], site)
    kept = []
    for edit in ("a price", "a real model's context", "a price, tenfold", "a card's memory"):
        path, change = EDITS[edit]
        (site / path).write_text(change((site / path).read_text(encoding="utf-8")), encoding="utf-8")
        rebuild = SiteBuild(site, incremental=True)
        assert _differences(rebuild.render(), SiteBuild(site).render()) == [], edit
        kept.append(len(rebuild.kept))
    assert all(kept), kept


def _cells_won(site: Path) -> dict[str, list]:
    guide = SiteBuild(site).guide
    return {gpu.id: guide.cells_won_by(gpu.id) for gpu in guide.data.gpus}


@pytest.mark.parametrize("edit", ["a price", "a price, tenfold"])
def test_a_card_page_is_rendered_again_after_a_price_edit_only_where_the_cells_it_wins_changed(
        built_warm, tmp_path, edit):
    site = _edited_copy(built_warm, tmp_path, edit)
    edited_card = re.search(r"\{gpu: ([\w-]+), usd: ", (site / EDITS[edit][0]).read_text(encoding="utf-8"))[1]
    before, after = _cells_won(built_warm[0]), _cells_won(site)
    changed = {card for card in after if before[card] != after[card]} | {edited_card}
    rebuild = SiteBuild(site, incremental=True)
    assert rebuild.render() == SiteBuild(site).render()
    card_pages = {page.id: page.item for page in rebuild.pages if page.collection == "card"}
    segments = [locale.segment for locale in rebuild.data.site.locales]
    rendered = {(segment, key) for segment in segments for key in card_pages} - set(rebuild.kept)
    assert rendered == {(segment, key) for segment in segments for key, card in card_pages.items() if card in changed}
    if edit == "a price, tenfold":
        assert changed - {edited_card}, "no other card's cells changed: the test proves nothing"


def test_a_price_edit_renders_only_some_pages_again(built_once, tmp_path):
    site = _edited_copy(built_once, tmp_path, "a price")
    rebuild = SiteBuild(site, incremental=True)
    rebuild.render()
    pages = len(rebuild.pages) * len(rebuild.data.site.locales)
    assert 0 < len(rebuild.kept) < pages


def test_a_content_edit_renders_that_page_alone_again(built_once, tmp_path):
    site = _edited_copy(built_once, tmp_path, "a content file")
    rebuild = SiteBuild(site, incremental=True)
    rebuild.render()
    everything = {(locale.segment, page.id) for locale in rebuild.data.site.locales for page in rebuild.pages}
    edited = {("en", page.id) for page in rebuild.pages if page.source == "pricing"}
    assert set(rebuild.kept) == everything - edited


@pytest.mark.parametrize("start", ["built_once", "built_warm"])
@pytest.mark.parametrize("edit", sorted(RENDER_EVERY_PAGE))
def test_an_edit_no_page_record_accounts_for_renders_every_page(request, tmp_path, edit, start):
    rebuild = SiteBuild(_edited_copy(request.getfixturevalue(start), tmp_path, edit), incremental=True)
    rebuild.render()
    assert rebuild.kept == []


def test_nothing_changed_keeps_every_page_and_the_same_bytes(built_once, tmp_path):
    site, files = built_once
    copy = tmp_path / "site"
    shutil.copytree(site, copy)
    rebuild = SiteBuild(copy, incremental=True)
    assert rebuild.render() == files
    assert len(rebuild.kept) == len(rebuild.pages) * len(rebuild.data.site.locales)


def test_two_workers_keep_the_same_pages_as_one(built_once, tmp_path):
    site = _edited_copy(built_once, tmp_path, "a price")
    one = SiteBuild(site, incremental=True)
    files = one.render()
    shutil.copytree(built_once[0] / ".cache", site / ".cache", dirs_exist_ok=True)  # the state before the edit
    two = SiteBuild(site, incremental=True)
    assert two.render(workers=2) == files
    assert two.kept == one.kept
    assert sorted(two.kept_files) == sorted(one.kept_files)


def test_the_preview_renders_only_the_edited_page_after_a_save(built_once, tmp_path, monkeypatch):
    site, _ = built_once
    copy = tmp_path / "site"
    shutil.copytree(site, copy)
    preview = PreviewSite(copy, log=lambda line: None)
    preview.current()
    rendered = []
    original = SiteBuild.render_page
    monkeypatch.setattr(SiteBuild, "render_page",
                        lambda build, page, locale: rendered.append((locale.segment, page.id)) or
                        original(build, page, locale))
    path, change = EDITS["a content file"]
    (copy / path).write_text(change((copy / path).read_text(encoding="utf-8")), encoding="utf-8")
    files, problems = preview.current()
    assert problems == []
    assert rendered == [("en", "pricing")]
    assert files == SiteBuild(copy).render()


def test_a_page_reads_the_same_records_after_other_pages_filled_the_caches(built_once, tmp_path):
    """What a page read, rendered after every other (its tables, grid and facts taken from the caches), holds
    everything it reads rendered first in a fresh build: no cache hides a read."""
    site, _ = built_once
    kept = read_signed(site / ".cache" / "pages.pickle")
    together = {(record.segment, record.key): record.reads for record in pickle.loads(kept)["records"]}
    for page in SiteBuild(site).pages:
        fresh = SiteBuild(site, incremental=True)
        locale = fresh.data.site.locales[-1]
        alone = fresh.render_recorded(page, locale).reads
        read = together[(locale.segment, page.id)]
        hidden = {(kind, name) for kind, name in alone if (kind, name) not in read and (kind, EVERY) not in read}
        assert hidden == set(), page.id


def _order_of_configurations(site: Path) -> list[tuple[str, int]]:
    return [(offer.gpu.id, offer.count) for offer in SiteBuild(site).guide.serving_offers()]


def _real_models_changed(before: Path, after: Path) -> set[str]:
    was = {model.id: model for model in SiteBuild(before).data.catalogue}
    return {model.id for model in SiteBuild(after).data.catalogue if was[model.id] != model}


@pytest.mark.parametrize("edit", ["a price", "a price, tenfold", "a real model's context", "a card's memory"])
def test_a_rebuild_makes_again_only_the_model_files_an_edit_can_change(built_once, tmp_path, edit):
    """A model's calculator file reads its model, every card and the order of the priced configurations, not
    their prices: a price edit that keeps the order keeps every file, one that changes it makes every file
    again, a real model's edit makes its own file again, a card's every file."""
    site = _edited_copy(built_once, tmp_path, edit)
    rebuild = SiteBuild(site, incremental=True)
    files = rebuild.render()
    every = {model_path(model.id) for model in rebuild.data.catalogue}
    made = every - set(rebuild.kept_files)
    reordered = _order_of_configurations(built_once[0]) != _order_of_configurations(site)
    if edit == "a price":
        assert not reordered, "the edit moved the configurations' order: the test proves nothing"
        assert made == set()
    elif edit == "a real model's context":
        changed = _real_models_changed(built_once[0], site)
        assert len(changed) == 1
        assert made == {model_path(model) for model in changed}
    else:
        assert edit == "a card's memory" or reordered, "the edit left the order as it was: the test proves nothing"
        assert made == every
    assert _differences(files, SiteBuild(site).render()) == []


def test_a_model_file_reads_the_same_records_after_the_others_filled_the_caches(built_once):
    """What a model's calculator file read, made after the pages and the other files (its formulas and verdicts
    taken from the caches), holds everything it reads made first in a fresh build."""
    site, _ = built_once
    together = {record.path: record.reads for record in
                pickle.loads(read_signed(site / ".cache" / "pages.pickle"))["files"]}
    assert together, "the build kept no model file: the test proves nothing"
    for path, read in together.items():
        fresh = SiteBuild(site, incremental=True)
        model = path.removesuffix(".json").rsplit("/", 1)[1]
        with reading() as alone:
            fresh.model_files((model,))
        hidden = {(kind, name) for kind, name in alone if (kind, name) not in read and (kind, EVERY) not in read}
        assert hidden == set(), path


def _page_paths(build: SiteBuild) -> list[str]:
    return [f"{locale.segment}/{page.id}.html" for locale in build.data.site.locales for page in build.pages]


@pytest.mark.parametrize("workers", [1, 2])
def test_pages_rendered_first_are_the_whole_renders_bytes_and_change_nothing_of_it(built_once, tmp_path, workers):
    """What the preview answers before the rest of a build is done (``pages_first``) is what the whole build
    publishes, and rendering those pages first leaves every file of the build as it would have been."""
    site = _edited_copy(built_once, tmp_path, "a price")
    kept_before = tmp_path / "kept-before"
    shutil.copytree(site / ".cache", kept_before)
    build = SiteBuild(site, incremental=True)
    paths = _page_paths(build)
    first = paths[1::7] + [paths[-1] + ".md"]  # pages of every kind and both languages, a twin's path
    early = build.pages_first(first)
    files = build.render(workers)
    assert {path.removesuffix(".md") for path in first} <= set(early)
    assert {path: early[path] for path in early} == {path: files[path] for path in early}
    shutil.rmtree(site / ".cache")
    shutil.copytree(kept_before, site / ".cache")
    assert _differences(files, SiteBuild(site, incremental=True).render(workers)) == []


def test_the_quick_site_renders_its_pages_first_with_the_same_bytes(tmp_path):
    site = tmp_path / "quick"
    for name in SOURCES:
        if (ROOT / "sites" / "quick" / name).is_dir():
            shutil.copytree(ROOT / "sites" / "quick" / name, site / name)
    build = SiteBuild(site)
    paths = _page_paths(build)
    early = build.pages_first(paths[::2])
    files = build.render()
    assert set(paths[::2]) <= set(early) and all(early[path] == files[path] for path in early)
    assert _differences(files, SiteBuild(site).render()) == []

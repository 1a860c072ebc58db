"""Listeners on a build hear each page start and finish in each language, and every table and chart it shows."""

from __future__ import annotations

import re

import pytest

from cli_support import ROOT
from live_sites import live_build
from vramsite.publish.site import SiteBuild
from vramsite.render.services import BuildListener

TABLE_ID = re.compile(r'<figure class="table[^"]*" id="table-([^"]+)"')


class Log(BuildListener):
    def __init__(self):
        self.events: list[tuple] = []

    def page_started(self, page, locale):
        self.events.append(("start", page.id, locale.segment))

    def page_finished(self, page, locale):
        self.events.append(("finish", page.id, locale.segment))

    def table_shown(self, table):
        self.events.append(("table", table.id))

    def chart_shown(self, name, locale, svg):
        self.events.append(("chart", name, locale.segment, svg))


@pytest.fixture(scope="module")
def heard():
    build = SiteBuild(ROOT)
    log = Log()
    build.events.add(log)
    files = build.render()
    return build, files, log.events


def _per_page(events) -> dict[tuple[str, str], list[tuple]]:
    """What was heard between each page's start and finish; fails on an event outside a page or pages that nest."""
    pages, current = {}, None
    for event in events:
        if event[0] == "start":
            assert current is None, f"{event} began inside {current}"
            current = event[1:]
            pages[current] = []
        elif event[0] == "finish":
            assert event[1:] == current, f"{event} finished while {current} was rendering"
            current = None
        else:
            assert current is not None, f"{event[:2]} heard outside a page"
            pages[current].append(event)
    assert current is None
    return pages


def test_every_page_starts_and_finishes_once_in_each_language(heard):
    build, _, events = heard
    _per_page(events)  # no page starts inside another
    started = [event[1:] for event in events if event[0] == "start"]
    expected = [(page.id, locale.segment) for locale in build.data.site.locales for page in build.pages]
    assert sorted(started) == sorted(expected)  # each once: the build renders them share by share


def test_the_tables_heard_on_a_page_are_the_tables_it_shows(heard):
    build, files, events = heard
    pages = _per_page(events)
    for (page, segment), heard_there in pages.items():
        shown = set(TABLE_ID.findall(files[f"{segment}/{page}.html"].decode("utf-8")))
        assert {event[1] for event in heard_there if event[0] == "table"} == shown, page
    assert any(event[0] == "table" for event in events)


def test_each_chart_heard_on_a_page_is_drawn_in_its_language_into_it(heard):
    _, files, events = heard
    charts = [(page, segment, event) for (page, segment), heard_there in _per_page(events).items()
              for event in heard_there if event[0] == "chart"]
    assert charts, "the site shows charts"
    for page, segment, (_, name, chart_segment, svg) in charts:
        assert chart_segment == segment
        html, twin = files[f"{segment}/{page}.html"].decode("utf-8"), files[f"{segment}/{page}.html.md"].decode()
        standalones = [content.decode("utf-8") for path, content in files.items()
                       if path.startswith(f"assets/charts/{segment}-{name}")]  # one per item for an item's chart
        assert svg in html or any(svg in standalone for standalone in standalones), (page, name)
        assert f"charts/{segment}-{name}" in twin


def test_a_listener_changes_no_byte(heard):
    _, files, _ = heard
    assert live_build("default")[1] == files


def test_a_table_drawn_into_a_chart_is_built_once_and_not_published_unless_shown():
    build = SiteBuild(ROOT)
    log = Log()
    build.events.add(log)
    drawn = build.tables.build("cost")
    assert build.tables.build("cost") is drawn and build.tables.shown() == []
    assert build.tables.show("cost") is drawn
    assert build.tables.shown() == [drawn] and build.tables.uses() == [("cost", {})]
    assert log.events == [("table", drawn.id)]


def test_a_table_another_worker_showed_is_counted_without_being_built_until_asked():
    build = SiteBuild(ROOT)
    build.tables.note("cost", {})
    assert build.tables.uses() == [("cost", {})]
    ((key, make),) = build.tables.lazily()
    assert key not in build.tables._built  # noted only: the worker's downloads come back written
    assert make() is build.tables.build("cost") and build.tables.shown() == [make()]

"""Content cannot leave its sandbox, and data text is printed as text: through the real command line.

Each case adds one expression to a content file of a built copy of the site
and runs ``build.py build``: exit status 1, one line naming the content file
and the expression's line, no traceback, the previous site/ byte for byte as
it was, and no file written, changed or removed anywhere else. The last
cases put Markdown into a card's name and check that it prints literally in
every page and twin, with no image or link it did not have.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

import pytest
from markdown_it import MarkdownIt

from bad_input_support import built_seed_site, fresh_copy
from cli_support import SOURCES, hashes, run_build

OUTPUT = "site"
BUILD_FOLDERS = (OUTPUT, OUTPUT + ".versions", ".cache")
"""What a build may write: the output, the writer's earlier versions of it, the compiled-code cache."""


@pytest.fixture(scope="module")
def built_site(tmp_path_factory) -> Path:
    """The seed 000 site, built, with a README.md of its own for content to try to reach."""
    site = built_seed_site(tmp_path_factory.mktemp("sandbox") / "site", "000")
    (site / "README.md").write_text("the site's own notes\n", encoding="utf-8")
    return site


@pytest.fixture
def site(built_site, tmp_path) -> Path:
    return fresh_copy(built_site, tmp_path / "site-src")


def everything_but_the_output(folder: Path) -> dict[str, str]:
    """Every file under ``folder`` (the site copy and what is around it), but the output and the code cache."""
    return {path: digest for path, digest in hashes(folder).items() if not _inside(path, BUILD_FOLDERS)}


def _inside(path: str, folders: tuple[str, ...]) -> bool:
    return any(f"/{folder}/" in f"/{path}" for folder in folders)


def append_to(site: Path, file: str, text: str) -> int:
    """Add ``text`` on new lines at the end of a content file; return the line it starts on."""
    path = site / file
    body = path.read_text(encoding="utf-8")
    if not body.endswith("\n"):
        body += "\n"
    path.write_text(body + text + "\n", encoding="utf-8")
    return body.count("\n") + 1


@dataclass(frozen=True)
class Escape:
    name: str
    expression: str
    words: str
    """What the one-line message must say."""
    file: str = "content/en/index.md"
    offset: int = 0
    """Lines from the start of ``expression`` to the line the message names."""


REFUSED = "not allowed in content"
UNKNOWN = "unknown name in an expression"
TOO_MUCH = "expression does too much"

ESCAPES = [
    # -- the build object, and through it the layouts, the paths and the file system
    Escape("the scope is not in content's reach", "{{ scope.build.root }}", f"{UNKNOWN}: 'scope' is undefined"),
    Escape("no shell through the layout environment",
           "{{ scope.build.layout.from_string(\"{{ cycler.__init__.__globals__.os.popen('id').read() }}\").render() }}",
           f"{UNKNOWN}: 'scope' is undefined"),
    Escape("no file written outside site/", "{{ scope.build.root.joinpath('../pwned').write_text('x') }}",
           f"{UNKNOWN}: 'scope' is undefined"),
    Escape("no /etc/passwd published",
           "{{ scope.build.layout.loader.get_source(scope.build.layout, '../../../../etc/passwd') }}",
           f"{UNKNOWN}: 'scope' is undefined"),
    Escape("README.md is not deleted", "{{ scope.build.root.joinpath('README.md').unlink() }}",
           f"{UNKNOWN}: 'scope' is undefined"),
    Escape("the layout helpers are not in content's reach", "{{ inline.fmt }}", f"{UNKNOWN}: 'inline' is undefined"),
    Escape("a page function does not lead back to the page", "{{ table.__self__ }}",
           f"{REFUSED}: content cannot use a method"),
    Escape("a bound method's function", "{{ model.__func__.__globals__ }}", f"{REFUSED}: content cannot use a method"),
    Escape("func_globals", "{{ g.model.func_globals }}", f"{REFUSED}: content cannot use a method"),
    Escape("a static method's globals", "{{ g.ratio.__globals__ }}", f"{REFUSED}: content cannot use a function"),
    Escape("a figure's class", "{{ g.__class__ }}", f"{REFUSED}: content cannot read '__class__' of a Guide"),
    Escape("mro of a record", "{{ g.data.site.__class__.mro() }}",
           f"{REFUSED}: content cannot read '__class__' of a SiteConfig"),
    Escape("internals the calculation keeps", "{{ g.market.gpus }}",
           f"{REFUSED}: content cannot use 'market' of a Guide: it is a Market"),
    Escape("Jinja's cycler", "{{ cycler.__init__.__globals__ }}", f"{UNKNOWN}: 'cycler' is undefined"),
    Escape("Jinja's lipsum", "{{ lipsum.__globals__ }}", f"{UNKNOWN}: 'lipsum' is undefined"),
    Escape("the namespace class", "{{ namespace.__init__ }}", f"{REFUSED}: content cannot use a type"),
    Escape("range's globals", "{{ range.__globals__ }}", f"{REFUSED}: content cannot use a function"),
    Escape("self's context", "{{ self._TemplateReference__context }}",
           f"{REFUSED}: content cannot use a TemplateReference"),
    Escape("a block through self", "{% block b %}x{% endblock %}{{ self.b }}",
           f"{REFUSED}: content cannot use a TemplateReference"),
    Escape("the loop object", "{% for x in [1] %}{{ loop.__class__ }}{% endfor %}",
           f"{REFUSED}: content cannot read '__class__' of a LoopContext"),
    Escape("a call block's caller", "{% macro m() %}{{ caller._func }}{% endmacro %}{% call m() %}x{% endcall %}",
           f"{REFUSED}: content cannot read '_func' of a Macro"),
    Escape("str.format", "{{ '{0.__class__.__init__.__globals__}'.format(g) }}",
           f"{REFUSED}: content cannot read 'format' of a str"),
    Escape("the format filter", "{{ '%s' | format(g) }}", "template syntax error: No filter named 'format'"),
    Escape("% formatting", "{{ '%999999999d' % 1 }}", f"{REFUSED}: content cannot format text with %"),
    Escape("the attr filter", "{{ g | attr('__class__') }}", f"{REFUSED}: content cannot read '__class__' of a Guide"),
    Escape("map by a private attribute", "{{ g.models | map(attribute='__class__') | list }}",
           f"{REFUSED}: content cannot read '__class__' of a ModelView"),
    Escape("a generator's frame", "{{ (g.models | map(attribute='name')).gi_frame }}",
           f"{REFUSED}: content cannot use a generator"),
    Escape("markup from data", "{{ g.data.gpus[0].name | safe }}", "template syntax error: No filter named 'safe'"),
    Escape("changing the page's params", "{{ params.setdefault('budget_usd', 1) }}",
           f"{REFUSED}: content cannot read 'setdefault' of a dict"),
    Escape("changing the data", "{{ g.data.pricing.usd.update({}) }}",
           f"{REFUSED}: content cannot read 'update' of a dict"),
    Escape("appending to a list", "{% set seen = [] %}{{ seen.append(1) }}",
           f"{REFUSED}: content cannot read 'append' of a list"),
    Escape("include", "{% include 'base.html' %}", "content cannot use {% include %}"),
    Escape("extends", "{% extends 'base.html' %}", "content cannot use {% extends %}"),
    Escape("import", "{% import 'partials/stats.html' as stats %}", "content cannot use {% import %}"),
    Escape("from import", "{% from 'partials/lookup_cell.html' import lookup_cell %}",
           "content cannot use {% from ... import %}"),
    # -- bounds
    Escape("a huge power", "{{ 2 ** 100000 }}", f"{TOO_MUCH}: a power larger than 4096 bits"),
    Escape("a huge repeat", "{{ 'x' * 100000000 }}", f"{TOO_MUCH}: a repeat of more than 1,000,000"),
    Escape("a huge range", "{{ range(1000000000) | list }}", f"{TOO_MUCH}: range() of more than 10,000 numbers"),
    Escape("a long loop", "{% for i in range(10000) %}{% for j in range(10000) %}{% endfor %}{% endfor %}",
           f"{TOO_MUCH}: more than 100,000 calls and loop rounds"),
    Escape("doubling a string", "{% set ns = namespace(s='x') %}\n{% for i in range(64) %}"
           "{% set ns.s = ns.s ~ ns.s %}{% endfor %}", f"{TOO_MUCH}: a value of more than 1,000,000", offset=1),
    Escape("a macro that doubles its output", "{% macro twice(n) %}{% if n %}{% set half = twice(n - 1) %}"
           "{{ half }}{{ half }}{% endif %}x{% endmacro %}{{ twice(60) }}", f"{TOO_MUCH}: the page's text grew past"),
    Escape("a macro that calls itself twice", "{% macro both(n) %}{% if n %}{{ both(n - 1) }}{{ both(n - 1) }}"
           "{% endif %}{% endmacro %}{{ both(60) }}", f"{TOO_MUCH}: more than 100,000 calls and loop rounds"),
    Escape("a number too large to print", "{% set ns = namespace(x=g.card_count.value) %}{% for i in range(40) %}"
           "{% set ns.x = ns.x * ns.x %}{% endfor %}{{ ns.x | num }}",
           f"{TOO_MUCH}: a number of more than 1,000 digits"),
    Escape("a macro that never returns", "{% macro deeper(n) %}{{ deeper(n + 1) }}{% endmacro %}{{ deeper(0) }}",
           "macros or loops call themselves too deeply"),
    Escape("a table in a loop", "{% for i in range(1000) %}{{ table('cost') }}{% endfor %}",
           f"{TOO_MUCH}: more than 200 tables, charts and stats blocks"),
]


@pytest.mark.parametrize("case", ESCAPES, ids=[case.name for case in ESCAPES])
def test_content_cannot_escape_its_sandbox(site, case):
    before = hashes(site / OUTPUT)
    line = append_to(site, case.file, case.expression) + case.offset
    around = everything_but_the_output(site.parent)

    run = run_build(site)

    assert run.returncode == 1, f"the build should fail:\n{run.stdout}{run.stderr}"
    assert "Traceback" not in run.stderr, run.stderr
    lines = run.stderr.splitlines()
    start = f"{case.file}:{line}: "
    assert [text for text in lines if text.startswith(start) and case.words in text], \
        f"expected a line starting {start!r} with {case.words!r}; got:\n{run.stderr}"
    assert lines[-1].endswith("nothing was written.")
    assert all(text.startswith(SOURCES) for text in lines[:-1]), "one line per problem, each naming its file"
    assert hashes(site / OUTPUT) == before, "the previous site changed"
    assert everything_but_the_output(site.parent) == around, "a file changed outside the output folder"
    assert (site / "README.md").read_text(encoding="utf-8") == "the site's own notes\n"


def test_the_api_content_uses_still_works(site):
    """What the content files do (macros, loops, namespaces, tables, data lists) builds, and prints as text."""
    line = append_to(site, "content/en/index.md", (
        "{% macro shout(x) %}[{{ x | upper }}]{% endmacro %}"
        "{% set ns = namespace(n=0) %}{% for m in g.models %}{% set ns.n = ns.n + 1 %}{% endfor %}"
        "Sandbox: {{ shout('ok') }} {{ ns.n }} {{ range(3) | join('+') }} {{ site.regions | map(attribute='id')"
        " | list | names }} {{ '*not emphasis*' ~ '' }}"))
    run = run_build(site)
    assert run.returncode == 0, run.stderr
    twin = (site / OUTPUT / "en" / "index.html.md").read_text(encoding="utf-8").splitlines()
    shown = next(text for text in twin if text.startswith("Sandbox:"))
    assert shown.startswith(r"Sandbox: [OK] ")
    assert r"0+1+2" in shown and r"\*not emphasis\*" in shown
    assert line > 1


# -- data text is text ---------------------------------------------------------------

INJECTIONS = {
    "an image": "A40 ![](https://evil.example/t.png)",
    "a link": "A40 [click](https://evil.example/x)",
    "raw HTML": 'A40 <img src="https://evil.example/t.png">',
    "a heading id and emphasis": "A40 *x* _y_ `z` {#evil}",
}


@pytest.mark.parametrize("name", INJECTIONS.values(), ids=list(INJECTIONS))
def test_markdown_in_a_card_name_prints_literally(site, name):
    gpus = site / "data" / "gpus.yaml"
    text = gpus.read_text(encoding="utf-8")
    assert text.count("    name: A40\n") == 1
    gpus.write_text(text.replace("    name: A40\n", f"    name: '{name}'\n"), encoding="utf-8")
    around = everything_but_the_output(site.parent)

    run = run_build(site)

    assert run.returncode == 0, run.stderr
    assert everything_but_the_output(site.parent) == around
    markdown = MarkdownIt("commonmark", {"html": True}).enable("table")
    seen = 0
    for path in sorted((site / OUTPUT).rglob("*")):
        if path.suffix not in (".html", ".md"):
            continue
        source = path.read_text(encoding="utf-8")
        html = markdown.render(source) if path.suffix == ".md" else source
        assert not re.search(r'(src|href)="https://evil', html), f"{path}: the name made a link or an image"
        assert not re.search(r'<img[^>]*evil|id="evil"|<em>x</em>|<code>z</code>', html), path
        if "evil" in source:
            seen += 1
            assert _html_text(name) in _visible(html), f"{path}: the name does not print as written"
    assert seen >= 10, "the name should show on the guide, the catalogue, its own page and their twins"


def _html_text(text: str) -> str:
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


def _visible(html: str) -> str:
    """The page's text with quotes as a browser shows them (the pages escape them in text and attributes)."""
    return html.replace("&#39;", "'").replace("&#34;", '"').replace("&quot;", '"')


def test_a_block_larger_than_the_text_cap_is_the_engines_and_raises_the_page_allowance():
    from vramsite.render.sandbox import MAX_OUTPUT, MAX_TEXT, Budget, LimitExceeded

    budget = Budget()
    grid = "x" * (MAX_TEXT * 3)  # a table of a site with many cards and models
    assert budget.block(grid) is grid
    budget.produced(len(grid))
    budget.produced(MAX_OUTPUT)  # what the content itself may still print
    with pytest.raises(LimitExceeded, match="grew past"):
        budget.produced(len(grid))  # printing the stored block again is content's doing

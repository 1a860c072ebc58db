"""Build a whole site in memory: every output path and its bytes.

Nothing is written here; ``writer.write_site`` swaps the result into place
only when this finished without a single problem.
"""

from __future__ import annotations

import posixpath
from dataclasses import dataclass
from functools import cached_property
from pathlib import Path

from babel import Locale as BabelLocale
from jinja2 import ChoiceLoader, Environment, FileSystemLoader, StrictUndefined, TemplateError, select_autoescape
from markupsafe import Markup

from ..calc import Guide
from ..errors import InputError, Problem
from ..load import load_site
from ..load.schema import schema_problems
from ..load.yaml_source import read_yaml
from ..render.content import content_environment, page_meta, read_content, render_content
from ..render.i18n import load_catalogs
from ..render.markdown import make_markdown, strip_heading_ids
from ..render.scope import HTML, MD, Scope, install_filters
from ..tables import ALL_TABLES
from . import discovery
from .router import Router
from .writer import SiteFiles

ENGINE_ROOT = Path(__file__).resolve().parent.parent.parent
"""The repository: its templates/ and locales/ back any site's own."""


@dataclass(frozen=True)
class ContentPage:
    id: str
    """The page key: <segment>/<id>.html."""
    source: str
    """Content file: content/<segment>/<source>.md."""
    template: str
    nav: str | None
    """Menu label (a UI string), or None to keep the page out of the menu."""
    params: dict
    card: str | None = None
    """For pages made once per card: the card's id (the content sees it as `card`)."""


def language_name(locale) -> str:
    """A language's name in itself: 中文, English."""
    return BabelLocale.parse(locale.gettext).get_language_name(locale.gettext)


@dataclass
class RenderedPage:
    key: str
    locale: object
    title: str
    description: str
    html: str
    markdown: str


class SiteBuild:
    def __init__(self, root: Path):
        self.root = Path(root)
        self.data = load_site(self.root)
        self.guide = Guide(self.data)
        self.catalogs = load_catalogs(self.root, self.data.site.locales)
        self.pages = self._read_pages()
        self.router = Router()
        for page in self.pages:
            self.router.add(page.id)
        self._tables: dict = {}

    # -- sources -------------------------------------------------------------

    def _read_pages(self) -> list[ContentPage]:
        name = "content/pages.yaml"
        path = self.root / name
        if not path.is_file():
            raise InputError([Problem(name, None, "", "file is missing")])
        document = read_yaml(path, name)
        problems = schema_problems(document, "pages.schema.json")
        if problems:
            raise InputError(problems)
        pages = []
        for item in document.value["pages"]:
            source = item.get("source", item["id"])
            if item.get("each") == "card":
                pages += [ContentPage(item["id"].replace("{card}", gpu.id), source, item["template"], None,
                                      item.get("params", {}), gpu.id) for gpu in self.data.gpus]
            else:
                pages.append(ContentPage(item["id"], source, item["template"], item.get("nav"), item.get("params", {})))
        return pages

    @cached_property
    def layout(self) -> Environment:
        """Layout templates: the site's own first, then the engine's."""
        folders = [self.root / "templates", ENGINE_ROOT / "templates"]
        env = Environment(
            loader=ChoiceLoader([FileSystemLoader(str(folder)) for folder in folders if folder.is_dir()]),
            autoescape=select_autoescape(["html"], default_for_string=False, default=False),
            undefined=StrictUndefined, trim_blocks=True, lstrip_blocks=True, keep_trailing_newline=True,
        )
        install_filters(env)
        return env

    @cached_property
    def content_env(self):
        env = content_environment()
        install_filters(env)
        return env

    @cached_property
    def markdown(self):
        return make_markdown()

    def table(self, name: str, **options):
        """A table object, built once however many pages and languages show it."""
        key = (name, _freeze(options))
        if key not in self._tables:
            if name not in ALL_TABLES:
                raise LookupError(f"unknown table {name!r} (known: {', '.join(ALL_TABLES)})")
            self._tables[key] = ALL_TABLES[name](self.guide, **options)
        return self._tables[key]

    # -- rendering -----------------------------------------------------------

    def render(self) -> dict[str, bytes]:
        """Every file of the site, by path relative to the output folder."""
        files = SiteFiles()
        problems: list[Problem] = []
        rendered: list[RenderedPage] = []
        for page in self.pages:
            for locale in self.data.site.locales:
                try:
                    rendered.append(self.render_page(page, locale))
                except InputError as error:
                    problems.extend(error.problems)
        if problems:
            raise InputError(problems + self.catalog_problems())
        for page in rendered:
            path = f"{page.locale.segment}/{page.key}.html"
            source = f"content/pages.yaml ({page.key})"
            files.add(path, page.html.encode("utf-8"), source)
            files.add(path + ".md", page.markdown.encode("utf-8"), source)
        for path, content in self.site_files(rendered).items():
            files.add(path, content, "templates")
        for path, content in self.assets().items():
            files.add(path, content, "templates/static")
        if self.catalog_problems():
            raise InputError(self.catalog_problems())
        return files

    def catalog_problems(self) -> list[Problem]:
        """UI strings some page asked for that a language's catalog lacks (strict by default)."""
        return [problem for catalog in self.catalogs.values() for problem in catalog.problems()]

    def site_files(self, rendered: list[RenderedPage]) -> dict[str, bytes]:
        """The language chooser, the 404 page, sitemap, robots.txt and llms.txt."""
        site = self.data.site
        by_key = {(page.key, page.locale.segment): page for page in rendered}
        languages = [{"locale": locale, "name": language_name(locale), "index": by_key[("index", locale.segment)],
                      "url": f"{locale.segment}/index.html", "catalog": self.catalogs[locale.segment]}
                     for locale in site.locales]
        # The 404 page is served at any address, so it carries its styles inline.
        stylesheet = Markup(self.assets()["assets/style.css"].decode("utf-8"))
        context = {"site": site, "languages": languages, "pricing": self.data.pricing, "stylesheet": stylesheet}
        files = {
            "index.html": self._plain("root.html", context),
            "index.html.md": self._plain("root.md", context),
            "404.html": self._plain("404.html", context),
            "404.html.md": self._plain("404.md", context),
            "sitemap.xml": discovery.sitemap(site.base_url, [page.id for page in self.pages], site.locales),
            "robots.txt": discovery.robots(site.base_url),
        }
        sections = []
        for language in languages:
            locale = language["locale"]
            links = [(page.title, f"{site.base_url}/{locale.segment}/{page.key}.html.md", page.description)
                     for page in rendered if page.locale == locale]
            sections.append((language["name"], links))
        summary = languages[0]["index"].description
        files["llms.txt"] = discovery.llms_txt(site.name, summary, sections)
        return files

    def _plain(self, template_name: str, context: dict) -> bytes:
        try:
            return self.layout.get_template(template_name).render(context).encode("utf-8")
        except TemplateError as error:
            raise InputError([Problem(f"templates/{getattr(error, 'name', None) or template_name}",
                                      getattr(error, "lineno", None), "", f"template error: {error.message}")]) from None

    def render_page(self, page: ContentPage, locale) -> RenderedPage:
        name = f"content/{locale.segment}/{page.source}.md"
        path = self.root / name
        if not path.is_file():
            raise InputError([Problem(name, None, "", f"missing: page {page.id!r} has no {locale.tag} text")])
        source = read_content(path, name, self.content_env)
        out_path = f"{locale.segment}/{page.id}.html"
        card = self.guide.gpu(page.card) if page.card else None
        md_scope = Scope(self, locale, MD, out_path, page.params, card)
        html_scope = Scope(self, locale, HTML, out_path, page.params, card)
        meta = page_meta(source, md_scope.template_context())
        body_md = strip_heading_ids(render_content(source, source.template, md_scope.template_context()))
        body_html = self.markdown.render(render_content(source, source.template, html_scope.template_context()))
        info = {"key": page.id, "title": meta["title"], "description": meta["description"],
                "lead": meta.get("lead", ""), "jsonld": discovery.faq_jsonld(body_html)}
        html = self._layout(page.template, html_scope, page=info, body=Markup(body_html))
        twin = self._layout("page.md", md_scope, page=info, body=Markup(body_md))
        return RenderedPage(page.id, locale, info["title"], info["description"], html, twin)

    def _layout(self, template_name: str, scope: Scope, **context) -> str:
        key = context["page"]["key"]
        base = self.data.site.base_url
        page_file = posixpath.basename(scope.page_path)
        context.update(
            nav=self.nav(scope),
            alternates=self.alternates(key),
            languages=self.languages(scope, key),
            canonical=f"{base}/{scope.page_path}",
            twin=page_file + ".md",
            html_url=page_file,
        )
        try:
            template = self.layout.get_template(template_name)
            return template.render(scope.template_context(**context))
        except TemplateError as error:
            raise InputError([Problem(f"templates/{getattr(error, 'name', None) or template_name}",
                                      getattr(error, "lineno", None), "", f"template error: {error.message}")]) from None

    def nav(self, scope: Scope) -> list[dict]:
        return [{"key": page.id, "label": page.nav, "url": scope.link(page.id)} for page in self.pages if page.nav]

    def languages(self, scope: Scope, key: str) -> list[dict]:
        """The same page in every language, for the language switch."""
        here = posixpath.dirname(scope.page_path)
        result = []
        for locale in self.data.site.locales:
            target = f"{locale.segment}/{key}.html"
            url = posixpath.relpath(target, here)
            result.append({"locale": locale, "name": language_name(locale), "url": url, "twin": url + ".md",
                           "current": locale == scope.locale})
        return result

    def alternates(self, key: str) -> list[dict]:
        base = self.data.site.base_url
        return [{"locale": locale, "url": f"{base}/{locale.segment}/{key}.html"} for locale in self.data.site.locales]

    def assets(self) -> dict[str, bytes]:
        files = {}
        for folder in (ENGINE_ROOT / "templates" / "static", self.root / "templates" / "static"):
            if folder.is_dir():
                for item in sorted(folder.iterdir()):
                    if item.is_file():
                        files[f"assets/{item.name}"] = item.read_bytes()
        return files


def _freeze(value):
    """A hashable copy of table options (lists and dicts from YAML)."""
    if isinstance(value, dict):
        return tuple(sorted((key, _freeze(item)) for key, item in value.items()))
    if isinstance(value, (list, tuple)):
        return tuple(_freeze(item) for item in value)
    return value

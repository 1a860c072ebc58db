"""The two Jinja environments a build renders with: layouts (trusted) and content (sandboxed)."""

from __future__ import annotations

from jinja2 import (ChoiceLoader, Environment, FileSystemBytecodeCache, StrictUndefined, TemplateNotFound,
                    TemplateSyntaxError, select_autoescape)

from ..layout import SiteLayout
from .content import content_environment
from .sandbox import ContentEnvironment
from .scope import install_filters
from .template_files import Utf8FileSystemLoader


def layout_environment(layout: SiteLayout) -> Environment:
    """Layout templates: the site's own first, then the engine's."""
    folders = layout.layers("templates")[::-1]
    cache = layout.code_cache
    try:
        cache.mkdir(parents=True, exist_ok=True)
    except OSError:  # a read-only checkout builds without the cache
        cache = None
    env = Environment(
        loader=ChoiceLoader([Utf8FileSystemLoader(str(folder)) for folder in folders if folder.is_dir()]),
        bytecode_cache=FileSystemBytecodeCache(str(cache)) if cache else None,
        autoescape=select_autoescape(["html"], default_for_string=False, default=False),
        undefined=StrictUndefined, trim_blocks=True, lstrip_blocks=True, keep_trailing_newline=True,
    )
    install_filters(env)
    return env


def content_env() -> ContentEnvironment:
    """The sandboxed environment for content files, with the formatting filters."""
    env = content_environment()
    env.optimized = False  # Jinja's constant folding costs a quarter of compiling a content file, and saves nothing
    install_filters(env)
    return env


def has_template(env: Environment, name: str) -> bool:
    """Whether ``env`` has a layout named ``name``; one that does not compile is there (its pages report it)."""
    try:
        env.get_template(name)
    except TemplateNotFound:
        return False
    except TemplateSyntaxError:
        return True
    return True

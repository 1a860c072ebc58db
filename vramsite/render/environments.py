"""The two Jinja environments a build renders with: layouts (trusted) and content (sandboxed)."""

from __future__ import annotations

from pathlib import Path

from jinja2 import (BytecodeCache, ChoiceLoader, Environment, StrictUndefined, TemplateNotFound, TemplateSyntaxError,
                    select_autoescape)
from jinja2.bccache import Bucket

from ..layout import SiteLayout
from ..signed_cache import cache_key, read_signed, write_signed
from .content import content_environment
from .sandbox import ContentEnvironment
from .scope import install_filters
from .template_files import Utf8FileSystemLoader


def layout_environment(layout: SiteLayout) -> Environment:
    """Layout templates: the site's own first, then the engine's."""
    folders = layout.layers("templates")[::-1]
    cache = layout.kept_code_cache if cache_key() is not None else None
    try:
        if cache:
            cache.mkdir(parents=True, exist_ok=True)
    except OSError:  # a read-only checkout builds without the cache
        cache = None
    env = Environment(
        loader=ChoiceLoader([Utf8FileSystemLoader(str(folder)) for folder in folders if folder.is_dir()]),
        bytecode_cache=SignedBytecodeCache(cache) if cache else None,
        autoescape=select_autoescape(["html"], default_for_string=False, default=False),
        undefined=StrictUndefined, trim_blocks=True, lstrip_blocks=True, keep_trailing_newline=True,
    )
    install_filters(env)
    return env


class SignedBytecodeCache(BytecodeCache):
    """Compiled layouts kept in a folder, a file each named as Jinja's FileSystemBytecodeCache names them, and
    signed (``signed_cache``): a file this machine did not write is never unmarshalled, its layout is compiled
    again and the file replaced."""

    def __init__(self, folder: Path):
        self.folder = folder

    def load_bytecode(self, bucket: Bucket) -> None:
        kept = read_signed(self._path(bucket))
        if kept is not None:
            bucket.bytecode_from_string(kept)

    def dump_bytecode(self, bucket: Bucket) -> None:
        try:
            write_signed(self._path(bucket), bucket.bytecode_to_string())
        except OSError:  # only the next build's shortcut is lost
            pass

    def _path(self, bucket: Bucket) -> Path:
        return self.folder / f"__jinja2_{bucket.key}.cache"


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

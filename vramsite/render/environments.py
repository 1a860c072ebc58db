"""The two Jinja environments a build renders with: layouts (trusted) and content (sandboxed)."""

from __future__ import annotations

from pathlib import Path

from jinja2 import (BytecodeCache, ChoiceLoader, Environment, StrictUndefined, TemplateNotFound, TemplateSyntaxError,
                    select_autoescape)
from jinja2.bccache import Bucket

from ..layout import SiteLayout
from ..signed_cache import cache_key, read_signed, write_signed
from .content import HeldCode, content_environment
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
        bytecode_cache=SignedBytecodeCache(cache),
        autoescape=select_autoescape(["html"], default_for_string=False, default=False),
        undefined=StrictUndefined, trim_blocks=True, lstrip_blocks=True, keep_trailing_newline=True,
    )
    install_filters(env)
    return env


class SignedBytecodeCache(BytecodeCache):
    """Compiled layouts, held by this process and kept in ``folder`` between processes.

    Held (``_HELD``) by the template's name and source: a second site rendered in this process, such as the
    copy an import builds, compiles no layout of the same text again (messages name a layout by its path under
    templates/, the same for both). Kept as a file each, named as Jinja's FileSystemBytecodeCache names them,
    and signed (``signed_cache``): a file this machine did not write is never unmarshalled, its layout is
    compiled again and the file replaced. Jinja checks each entry against its template's source."""

    _HELD = HeldCode()

    def __init__(self, folder: Path | None):
        self.folder = folder

    def get_bucket(self, environment, name: str, filename: str | None, source: str) -> Bucket:
        bucket = Bucket(environment, self.get_cache_key(name, filename), self.get_source_checksum(source))
        bucket.held_as = (name, bucket.checksum)
        held = self._HELD.get(bucket.held_as)
        if held is not None:
            bucket.bytecode_from_string(held)
        if bucket.code is None:
            self.load_bytecode(bucket)
        return bucket

    def load_bytecode(self, bucket: Bucket) -> None:
        kept = None if self.folder is None else read_signed(self._path(bucket))
        if kept is not None:
            bucket.bytecode_from_string(kept)
            if bucket.code is not None:
                self._HELD[bucket.held_as] = kept

    def dump_bytecode(self, bucket: Bucket) -> None:
        code = bucket.bytecode_to_string()
        self._HELD[bucket.held_as] = code
        if self.folder is None:
            return
        try:
            write_signed(self._path(bucket), code)
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

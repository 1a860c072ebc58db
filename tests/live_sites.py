"""The two sites of this repository, rendered in memory once per test process and shared by every module that
reads them as they are: the full site takes seconds to render, and a dozen modules read it.

Read only: the files come as a read-only mapping, and a test that breaks a page breaks its own copy
(``dict(files)``). A test that edits sources or listens to a build makes its own ``SiteBuild``.
"""

from __future__ import annotations

import gc
from functools import lru_cache
from types import MappingProxyType

from site_support import SITES, parse_html
from vramsite.publish.site import SiteBuild


@lru_cache(maxsize=None)
def live_build(name: str) -> tuple[SiteBuild, MappingProxyType]:
    """``SITES[name]``'s build and every file it renders."""
    build = SiteBuild(SITES[name])
    files = MappingProxyType(build.render())
    _kept_for_the_process()
    return build, files


@lru_cache(maxsize=None)
def live_trees(name: str) -> MappingProxyType:
    """Each HTML page of ``SITES[name]``, parsed strictly (``parse_html``), by path."""
    _build, files = live_build(name)
    trees = MappingProxyType({path: parse_html(content) for path, content in files.items() if path.endswith(".html")})
    _kept_for_the_process()
    return trees


def _kept_for_the_process() -> None:
    """What was just made lives as long as the process: the cycle collector need not walk it again. Walked in every
    full collection, a live build's millions of objects made each later test that allocates much several times
    slower (a paste of test_in_page_importer: 0.6 to 0.8 s against 0.16 s). Garbage is collected first, so that
    none is kept for good."""
    gc.collect()
    gc.freeze()

"""Cache files a build reads back, signed with a key that no site holds: nothing read from a working tree runs.

A build keeps what it computed under <site>/.cache/ for the next one: its
pages pickled (pages.pickle), content and layouts compiled (marshalled code
in .cache/jinja) and the build stamp. Unpickling and unmarshalling run
whatever the file says, and ``git add -f`` commits an ignored .cache like any
file, so each of these files starts with an HMAC-SHA256 of its name and
bytes under a key kept outside every site, checked before anything is
loaded:

- ``VRAMSITE_CACHE_KEY`` from the environment, when set and not empty (CI
  passes a repository secret; a fork's pull request gets none and builds
  cold);
- else a random key in the user's cache folder
  (``$XDG_CACHE_HOME/vramsite/cache.key``, else
  ``~/.cache/vramsite/cache.key``), made on first use, readable by its owner
  alone.

A file whose signature does not match (planted, copied from another machine,
cut short) reads as absent: the build runs cold and writes a signed one. A
key file that lies inside a site, the engine's repository or a git working
tree, or that another user may read or write, is not used: whoever can write
it can sign. Builds then keep no cache, after one warning. Imports here are
cheap: the build stamp, read before anything else, goes through this module.
"""

from __future__ import annotations

import functools
import hashlib
import hmac
import io
import os
import stat
import sys
from collections.abc import Callable
from pathlib import Path

from .layout import ENGINE_ROOT

KEY_VARIABLE = "VRAMSITE_CACHE_KEY"
KEY_BYTES = 32
MAC_BYTES = hashlib.sha256().digest_size


class UnusableKey(Exception):
    """The key file is there but must not be trusted; the message says why."""


def read_signed(path: Path) -> bytes | None:
    """What ``write_signed`` kept at ``path`` on this machine; None for a file that is missing, not a plain
    file, or not signed with this machine's key."""
    key = cache_key()
    if key is None:
        return None
    try:
        # O_NOFOLLOW, O_NONBLOCK: a planted link to /dev/zero or a FIFO is refused, not read forever
        handle = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK)
    except OSError:
        return None
    with os.fdopen(handle, "rb") as file:
        if not stat.S_ISREG(os.fstat(file.fileno()).st_mode):
            return None
        mac, data = file.read(MAC_BYTES), file.read()  # read apart: no copy of a file of hundreds of megabytes
    return data if hmac.compare_digest(mac, _mac(key, path.name, data)) else None


def write_signed(path: Path, data: bytes) -> bool:
    """Keep ``data`` at ``path`` in one step, signed; False where there is no key to sign with (nothing written).
    Raises OSError where the file cannot be written."""
    return write_signed_by(path, lambda out: out.write(data))


def write_signed_by(path: Path, write: Callable[[_Signing], object]) -> bool:
    """``write_signed`` of what ``write(file)`` writes, signed as it goes: a build's kept pages, hundreds of
    megabytes at a large catalogue, are pickled straight into the file rather than into memory first."""
    key = cache_key()
    if key is None:
        return False
    path.parent.mkdir(parents=True, exist_ok=True)
    temporary = path.with_name(f".{path.name}.{os.getpid()}-{os.urandom(4).hex()}.tmp")
    handle = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, 0o644)
    try:
        with os.fdopen(handle, "wb") as file:
            file.write(bytes(MAC_BYTES))  # where the signature goes, once all is written
            signing = _Signing(file, _mac_start(key, path.name))
            write(signing)
            file.seek(0)
            file.write(signing.mac.digest())
        os.replace(temporary, path)
    except BaseException:
        temporary.unlink(missing_ok=True)
        raise
    return True


class _Signing:
    """A file that signs what is written to it."""

    def __init__(self, file: io.BufferedWriter, mac):
        self.file, self.mac = file, mac

    def write(self, chunk) -> int:
        self.mac.update(chunk)
        return self.file.write(chunk)


def _mac(key: bytes, name: str, data: bytes) -> bytes:
    mac = _mac_start(key, name)
    mac.update(data)  # not joined to the name: pages.pickle is megabytes
    return mac.digest()


def _mac_start(key: bytes, name: str):
    """Over the file's name too: a signed file moved to another name (pages kept as compiled code) fails."""
    return hmac.new(key, name.encode("utf-8") + b"\0", hashlib.sha256)


@functools.cache
def cache_key() -> bytes | None:
    """This machine's key, or None (with a warning, once per process) where it has none it can trust."""
    secret = os.environ.get(KEY_VARIABLE)
    if secret:
        return secret.encode("utf-8")
    try:
        path = key_file()
    except RuntimeError:
        return _without_key("the cache key", "there is no home folder")
    try:
        reason = untrusted_place(path)
        if reason:
            raise UnusableKey(reason)
        return _read_or_make(path)
    except (OSError, UnusableKey) as error:
        return _without_key(path, error.strerror if isinstance(error, OSError) and error.strerror else str(error))


def _without_key(where, reason: str) -> None:
    print(f"warning: {where}: cannot serve as the cache key ({reason}); this build keeps no cache. "
          f"Set {KEY_VARIABLE}, or XDG_CACHE_HOME to a folder of your own outside any site", file=sys.stderr)
    return None


def key_file() -> Path:
    """$XDG_CACHE_HOME/vramsite/cache.key (an absolute XDG_CACHE_HOME only, as the XDG spec says), else
    ~/.cache/vramsite/cache.key. Raises RuntimeError where there is no home folder."""
    folder = os.environ.get("XDG_CACHE_HOME", "")
    base = Path(folder) if os.path.isabs(folder) else Path.home() / ".cache"
    return base / "vramsite" / "cache.key"


def untrusted_place(path: Path) -> str | None:
    """Why a key at ``path`` could be written by whoever writes a site's files, or None: it lies inside the
    engine's repository, a site (a folder with data/site.yaml) or a git working tree."""
    for folder in Path(os.path.realpath(path.parent)).joinpath(path.name).parents:
        if folder == ENGINE_ROOT:
            return f"it lies inside the engine's repository {folder}"
        if (folder / "data" / "site.yaml").is_file():
            return f"it lies inside the site {folder}"
        if (folder / ".git").exists():
            return f"it lies inside the git working tree {folder}"
    return None


def _read_or_make(path: Path) -> bytes:
    try:
        handle = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK)
    except FileNotFoundError:
        _make(path)
        handle = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK)
    with os.fdopen(handle, "rb") as file:
        info = os.fstat(file.fileno())
        if not stat.S_ISREG(info.st_mode):
            raise UnusableKey("it is not a plain file")
        if info.st_uid != os.getuid() or info.st_mode & 0o077:
            raise UnusableKey("another user may read or write it: it must be its owner's alone (chmod 600)")
        key = file.read(KEY_BYTES + 1)
    if len(key) != KEY_BYTES:
        raise UnusableKey(f"it does not hold {KEY_BYTES} bytes; remove it and a new one is made")
    return key


def _make(path: Path) -> None:
    """A new random key, whole or not at all: written aside, then linked into place unless another process
    made one first (theirs is kept, so that two builds at once sign with one key)."""
    path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
    temporary = path.with_name(f".{path.name}.{os.getpid()}-{os.urandom(4).hex()}")
    handle = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, 0o600)
    try:
        with os.fdopen(handle, "wb") as file:
            file.write(os.urandom(KEY_BYTES))
        try:
            os.link(temporary, path)
        except FileExistsError:
            pass
    finally:
        temporary.unlink(missing_ok=True)


"""Files the tests take from a package on the npm registry, fetched once into .cache/ and checked
against the integrity hash the registry publishes for the package's tarball."""

from __future__ import annotations

import base64
import hashlib
import io
import os
import tarfile
import urllib.request
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent


def npm_file(package: str, version: str, sha512: str, member: str) -> Path:
    """``member`` of ``package``'s tarball (a path under package/), kept in .cache/<package>/<version>/."""
    target = ROOT / ".cache" / package / version / Path(member).name
    if target.is_file():
        return target
    tarball_url = f"https://registry.npmjs.org/{package}/-/{package}-{version}.tgz"
    try:
        with urllib.request.urlopen(tarball_url, timeout=120) as response:
            tarball = response.read()
    except OSError as error:
        pytest.fail(f"cannot fetch {package} from {tarball_url} ({error}); put its {member} at {target}")
    digest = base64.b64encode(hashlib.sha512(tarball).digest()).decode()
    if digest != sha512:
        pytest.fail(f"{tarball_url} does not match its published integrity (sha512-{digest})")
    with tarfile.open(fileobj=io.BytesIO(tarball)) as archive:
        content = archive.extractfile(member).read()
    target.parent.mkdir(parents=True, exist_ok=True)
    partial = target.with_name(f"{target.name}.{os.getpid()}.part")  # test workers may fetch it side by side
    partial.write_bytes(content)
    partial.replace(target)
    return target

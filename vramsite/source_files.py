"""Rewriting a site's own source files (data/*.yaml) from a command, in one step."""

from __future__ import annotations

import os
import shutil
import tempfile
from pathlib import Path

NEW_FILE_MODE = 0o644
"""A new file is as readable as the data files beside it (a temporary file starts private)."""


def replace_text(path: Path, text: str) -> None:
    """Write ``text`` to ``path`` in one step: a reader sees the old file or the new one, never half of it.

    A file that exists keeps its permissions; a new one gets ``NEW_FILE_MODE``.
    """
    path.parent.mkdir(parents=True, exist_ok=True)
    handle, temporary = tempfile.mkstemp(prefix=f".{path.name}.", dir=path.parent)
    try:
        with os.fdopen(handle, "wb") as file:
            file.write(text.encode("utf-8"))
            file.flush()
            os.fsync(file.fileno())
        if path.exists():
            shutil.copymode(path, temporary)
        else:
            os.chmod(temporary, NEW_FILE_MODE)
        os.replace(temporary, path)
    except BaseException:
        Path(temporary).unlink(missing_ok=True)
        raise

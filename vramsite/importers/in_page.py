"""A config.json a reader pastes into the calculator, sized by the importer and the calculation themselves.

The page runs this module in the browser (Pyodide: publish/in_page_importer.py bundles it with the site's data):
the config is read by the rules `build.py model add` reads it by (hf_config.py), its entry is added to the copy of
the site's catalogue the browser holds in memory (as text: ``catalogue_file.appended``), the site is loaded with it,
and the model's calculator data is made as the build makes every real model's (render/calculator/data.py). The
page's answer for a pasted config is therefore the answer the site would publish for it, with no rule written a
second time for the script.
"""

from __future__ import annotations

import json
import shutil
import tempfile
from dataclasses import replace
from pathlib import Path

from ..calc import Guide
from ..errors import InputError
from ..load import load_site
from ..render.calculator.data import model_data, model_files
from .catalogue_file import CATALOGUE_FILE, appended
from .command import AddOptions, config_entry

PASTED_ID = "pasted-config"
"""The id the pasted model takes in the browser's copy of the catalogue."""
CONFIG_NAME = "config.json"
"""What a problem calls the pasted text."""


def size_pasted(site: Path, config_text: str) -> dict:
    """``config_text`` added to the catalogue of ``site`` (a copy this may change: the browser's, in memory) and
    sized: ``{"model": its entry in the language's calculator data, "file": its calculator file}``, or
    ``{"problems": [each problem, as the importer words it]}``."""
    config = site / CONFIG_NAME
    config.write_text(config_text, encoding="utf-8")
    options = AddOptions(model_id=PASTED_ID, name=CONFIG_NAME, source_repository="pasted",
                         source_file=CONFIG_NAME, source_revision="pasted")
    try:
        entry = config_entry(site, config, options)
        catalogue = site / CATALOGUE_FILE
        catalogue.write_text(appended(catalogue.read_text(encoding="utf-8"), entry, None), encoding="utf-8")
        guide = Guide(load_site(site))
    except InputError as error:
        return {"problems": [str(replace(problem, file=CONFIG_NAME) if problem.file == str(config) else problem)
                             for problem in error.problems]}
    view = guide.catalogue_model(PASTED_ID)
    return {"model": model_data(view.model, guide), "file": model_files(guide, [PASTED_ID])[PASTED_ID]}


def size_pasted_json(site: str, config_text: str) -> str:
    """``size_pasted`` for the page's script, on a fresh copy of the site's data each time (each paste joins the
    catalogue as it is published): the site's folder as text in, JSON out. The reader's answer to any config is
    an answer or problems: a failure the importer did not foresee is one problem line too, never a traceback left
    in the browser's console with the page still saying it is sizing."""
    with tempfile.TemporaryDirectory() as folder:
        shutil.copytree(Path(site) / "data", Path(folder) / "data")
        try:
            found = size_pasted(Path(folder), config_text)
        except Exception as error:  # noqa: BLE001 - the page's boundary: every failure is said beside the box
            found = {"problems": [f"{CONFIG_NAME}: could not be sized ({type(error).__name__}: {error})"]}
    return json.dumps(found, ensure_ascii=False, separators=(",", ":"), sort_keys=True)

"""The calculator's "Paste a config.json": the importer and the calculation, run on a pasted config, give what the
site publishes for the same config (importers/in_page.py), and run the same in Pyodide, the CPython the page loads
(publish/in_page_importer.py), as here.

Every config the catalogue is imported from without stated counts or RoPE scaling is pasted here; in Pyodide,
under Node, one config per architecture (each architecture's rules are the importer's code for it; a paste takes
Pyodide 1.5 to 2 seconds on this machine, after 5 to load it).
"""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

import pytest

from live_sites import live_build
from test_model_import import CATALOGUE_IMPORTS, CONFIGS
from vramsite.importers.in_page import PASTED_ID, size_pasted, size_pasted_json
from vramsite.publish.in_page_importer import FOLDER
from vramsite.render.calculator import model_files

ROOT = Path(__file__).resolve().parent.parent
NODE = shutil.which("node")
SIZED_AS_PUBLISHED = ("model_id", "name", "source_repository", "source_revision", "params_note")
"""The options a catalogue import may take and still size the model as a pasted config is: the rest state counts
or a RoPE scaling the config does not hold."""


@pytest.fixture(scope="module")
def published():
    build, files = live_build("default")
    return build, files


@pytest.fixture(scope="module")
def published_entries(published) -> dict:
    """model -> its entry in the first language's calculator data, as published."""
    build, _ = published
    segment = build.data.site.locales[0].segment
    data = json.loads(build.calculator_files(build.data.site.locales[0])[f"data/{segment}/calculator.json"])
    return {model["id"]: model for model in data["models"]}


def _pasted(tmp_path: Path, text: str) -> dict:
    site = tmp_path / "site"
    shutil.copytree(ROOT / "data", site / "data")
    return size_pasted(site, text)


SIZED_ALIKE = [(fixture, options) for fixture, options in CATALOGUE_IMPORTS if set(options) <= set(SIZED_AS_PUBLISHED)]
"""The catalogue's imports a paste of the same config must size exactly alike: 49 of 62, the others stating counts
or a RoPE scaling (every architecture, those among them too, is pasted in Pyodide below)."""


@pytest.mark.parametrize("fixture, options", SIZED_ALIKE, ids=[fixture for fixture, _ in SIZED_ALIKE])
def test_a_pasted_config_is_sized_as_the_site_sizes_its_own_import(tmp_path, published, published_entries, fixture,
                                                                    options):
    build, _ = published
    found = _pasted(tmp_path, (CONFIGS / f"{fixture}.json").read_text(encoding="utf-8"))
    assert "problems" not in found, found
    assert found["model"]["id"] == PASTED_ID
    own = model_files(build.guide, [options["model_id"]])[options["model_id"]]
    assert found["file"] == json.loads(json.dumps(own, default=str))
    model = published_entries[options["model_id"]]
    assert {**found["model"], "id": model["id"], "name": model["name"]} == model


def test_a_config_the_importer_refuses_is_refused_with_its_line_and_field(tmp_path):
    config = json.loads((CONFIGS / "mistral-7b-v0.1.json").read_text(encoding="utf-8"))
    config["num_key_value_heads"] = 5
    text = json.dumps(config, indent=2)
    line = next(number for number, row in enumerate(text.splitlines(), 1) if "num_key_value_heads" in row)
    assert _pasted(tmp_path, text) == {"problems": [
        f"config.json:{line}: num_key_value_heads: 5 does not divide num_attention_heads (32): each KV head serves a "
        "whole number of query heads"]}
    assert _pasted(tmp_path / "again", "{not json")["problems"][0].startswith("config.json:1: not JSON")


def test_a_failure_the_importer_did_not_foresee_is_one_problem_line(tmp_path, monkeypatch):
    """What the page shows for any config is an answer or problems, never a Python traceback it cannot show."""
    shutil.copytree(ROOT / "data", tmp_path / "data")

    def fails(*_):
        raise ZeroDivisionError("division by zero")
    monkeypatch.setattr("vramsite.importers.in_page.model_files", fails)
    text = (CONFIGS / "phi-2.json").read_text(encoding="utf-8")
    assert json.loads(size_pasted_json(str(tmp_path), text)) == {
        "problems": ["config.json: could not be sized (ZeroDivisionError: division by zero)"]}


def test_each_paste_joins_the_catalogue_as_published(tmp_path):
    """The page sizes one paste after another on the same copy of the data: each starts from the published one."""
    shutil.copytree(ROOT / "data", tmp_path / "data")
    text = (CONFIGS / "phi-2.json").read_text(encoding="utf-8")
    first, second = (json.loads(size_pasted_json(str(tmp_path), text)) for _ in range(2))
    assert first == second and "model" in first
    assert (tmp_path / "data" / "catalogue.yaml").read_bytes() == (ROOT / "data" / "catalogue.yaml").read_bytes()


def test_without_the_runtime_the_site_offers_no_paste_and_says_why(tmp_path, monkeypatch, capsys):
    """Offline, with no runtime kept: no importer's files, no paste field (ScopeServices.importer), one line on
    stderr naming where the files would go."""
    from vramsite.publish import in_page_importer, site

    def offline(cache):
        raise OSError("no network")
    empty = tmp_path / "pyodide"
    monkeypatch.setattr(in_page_importer, "_fetch_runtime", offline)
    monkeypatch.setattr(in_page_importer, "RUNTIME_CACHE", empty)
    monkeypatch.setattr(site, "RUNTIME_CACHE", empty)
    build = site.SiteBuild(ROOT)
    assert not build.has_importer and build.importer_files == {} and build.scope_services.importer is None
    said = capsys.readouterr().err
    assert "'Paste a config.json' is left out" in said and "no network" in said and str(empty) in said


def _one_per_architecture() -> list[Path]:
    chosen: dict[str, Path] = {}
    for fixture, _ in CATALOGUE_IMPORTS:
        path = CONFIGS / f"{fixture}.json"
        chosen.setdefault(json.loads(path.read_text(encoding="utf-8"))["architectures"][0], path)
    return list(chosen.values())


@pytest.mark.skipif(NODE is None, reason="Node.js is not installed (.ci/run installs it)")
def test_pyodide_sizes_a_config_of_every_architecture_as_cpython_does(tmp_path, published):
    _, files = published
    importer = tmp_path / "importer"
    importer.mkdir()
    runtime = {path: content for path, content in files.items() if path.startswith(FOLDER + "/")}
    if not runtime:
        pytest.skip("the site was built without the in-page importer (Pyodide's runtime could not be fetched)")
    for path, content in runtime.items():
        (importer / Path(path).name).write_bytes(content)
    configs = _one_per_architecture()
    script = tmp_path / "size.mjs"
    script.write_text(PYODIDE_SCRIPT, encoding="utf-8")
    run = subprocess.run([NODE, str(script), str(importer), *map(str, configs)], capture_output=True, text=True,
                         timeout=900, check=False)
    assert run.returncode == 0, run.stderr[-3000:]
    sized = [json.loads(line) for line in run.stdout.splitlines()]
    assert [item["file"] for item in sized] == [str(config) for config in configs]
    for item in sized:
        expected = json.loads(size_pasted_json(str(ROOT), Path(item["file"]).read_text(encoding="utf-8")))
        assert item["out"] == expected, item["file"]


PYODIDE_SCRIPT = """
import fs from "node:fs";
const folder = process.argv[2];
const { loadPyodide } = await import(folder + "/pyodide.mjs");
const py = await loadPyodide({ indexURL: folder + "/" });
for (const name of ["engine.zip", "data.zip"]) {
  py.unpackArchive(new Uint8Array(fs.readFileSync(folder + "/" + name)), "zip", { extractDir: "/importer" });
}
py.runPython("import sys; sys.path.insert(0, '/importer'); from vramsite.importers.in_page import size_pasted_json");
const size = py.globals.get("size_pasted_json");
for (const file of process.argv.slice(3)) {
  console.log(JSON.stringify({ file, out: JSON.parse(size("/importer/site", fs.readFileSync(file, "utf8"))) }));
}
"""
"""The page's own steps (calculator.js ``loadImporter``), under Node: one JSON line per config."""


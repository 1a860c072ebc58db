"""`build.py measure --out`: checked as `build --out` is before anything runs, and never replacing a file.

It used to write wherever --out said once the run was over, over a source
file as readily as over nothing, and a second run on the same day replaced
the first's file. Now a path that exists, or that lies among the sources
(links followed) other than the site's data/measurements/, is refused up
front, and the file is written under a new name: the one asked for, or with
-2, -3 ... where another run took it.
"""

from __future__ import annotations

import pytest

from cli_support import ROOT, copy_sources, run_cli
from vramsite.errors import InputError
from vramsite.measure.command import write_measurement
from vramsite.measure.output import check_out


@pytest.fixture(scope="module")
def site(tmp_path_factory):
    return copy_sources(tmp_path_factory.mktemp("measure-out") / "site")


def test_a_source_file_as_out_is_refused_before_anything_runs(site):
    prices = site / "data" / "prices.yaml"
    before = prices.read_bytes()
    run = run_cli("measure", "--site", str(site), "--device", "cpu", "--gpu", "h200-sxm", "--out", str(prices))
    assert run.returncode == 1, run.stdout
    assert run.stderr.splitlines()[0] == (f"--out: {prices} exists already: a measurement never replaces a file; "
                                          "give a path to a new one")
    assert prices.read_bytes() == before


@pytest.mark.parametrize("out, reason", [
    ("data/gpus.yaml", "exists already"),
    ("data/new.yaml", "is inside the site's data folder"),
    ("content/en/new.yaml", "is inside the site's content folder"),
    ("templates/new.yaml", "is inside the site's templates folder"),
    ("linked-data/new.yaml", "is inside the site's data folder"),
    ("data/measurements/old.yaml", "exists already"),
    ("dangling.yaml", "exists already"),
])
def test_paths_a_measurement_must_not_take(site, out, reason):
    (site / "linked-data").unlink(missing_ok=True)
    (site / "linked-data").symlink_to(site / "data")
    (site / "dangling.yaml").unlink(missing_ok=True)
    (site / "dangling.yaml").symlink_to(site / "nowhere.yaml")
    (site / "data" / "measurements").mkdir(exist_ok=True)
    (site / "data" / "measurements" / "old.yaml").touch()
    with pytest.raises(InputError, match=reason):
        check_out(site / out, site)


def test_the_engines_code_is_refused(site):
    with pytest.raises(InputError, match="is inside the engine's vramsite folder"):
        check_out(ROOT / "vramsite" / "measure" / "new.py", site)


def test_a_measurements_folder_that_links_into_the_sources_is_refused(tmp_path):
    site = copy_sources(tmp_path / "site", ROOT / "sites" / "quick")
    (site / "data" / "measurements").symlink_to(site / "content")
    with pytest.raises(InputError, match="is inside the site's content folder"):
        check_out(site / "data" / "measurements" / "h200-2026-12-03.yaml", site)


def test_new_files_in_the_measurements_folder_or_outside_the_sources_are_accepted(site, tmp_path):
    (site / "data" / "measurements").mkdir(exist_ok=True)
    for out in (site / "data" / "measurements" / "h200-2026-12-03.yaml", tmp_path / "runs" / "cpu.yaml",
                site / "cpu-run.yaml"):
        check_out(out, site)


def test_a_second_run_that_day_is_written_beside_the_first(tmp_path):
    out = tmp_path / "h200-2026-12-03.yaml"
    written = [write_measurement({"run": number}, out) for number in (1, 2, 3)]
    assert [path.name for path in written] == ["h200-2026-12-03.yaml", "h200-2026-12-03-2.yaml",
                                               "h200-2026-12-03-3.yaml"]
    assert [path.read_text(encoding="utf-8").splitlines()[-1] for path in written] == ["run: 1", "run: 2", "run: 3"]
    assert {path.name for path in tmp_path.iterdir()} == {path.name for path in written}, "no temporary file left"

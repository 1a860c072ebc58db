"""The two commands that write editors' data files, against hostile or unlucky input (issue 35).

`build.py prices import` rewrites data/prices.yaml, `build.py model add` appends to data/catalogue.yaml.
Each holds the site's edit lock from its first read to its write and replaces a file only if it is still the
bytes it read; reads every data file with `check`'s bounds before ruamel.yaml sees it; reads a config or an
export only if it is a regular file, and no further than its bound; refuses what `check` would then refuse;
writes through a link only to a target inside the site; and keeps its scratch copy of the site in the site's
own .cache. Most cases run in this process (an import builds the site twice, a few seconds); the ones about
processes (a killed import, a FIFO) run the command line.
"""

from __future__ import annotations

import fcntl
import json
import os
import signal
import subprocess
import sys
import time
import tracemalloc
from datetime import datetime, timedelta, timezone
from pathlib import Path

import pytest

from cli_support import ROOT, copy_sources, run_cli
from fuzz_support import no_hang
from test_model_import import EDITED
from vramsite.errors import InputError
from vramsite.importers import command as model_command
from vramsite.importers import json_file
from vramsite.importers.command import AddOptions, add_model
from vramsite.importers.json_file import read_json
from vramsite.listings import command as prices_command
from vramsite.listings.cards import card_names
from vramsite.listings.command import import_prices, read_snapshot, snapshot_time
from vramsite.listings.prices_file import layout_problem
from vramsite.listings.read import Export
from vramsite.load.yaml_source import read_yaml
from vramsite.publish import lock

CONFIGS = ROOT / "tests" / "fixtures" / "hf_configs"
LISTINGS = ROOT / "tests" / "fixtures" / "listings"
QUICK = ROOT / "sites" / "quick"
PRICES = "data/prices.yaml"
CATALOGUE = "data/catalogue.yaml"
NOVEMBER = LISTINGS / "november.csv"
A_MODEL = EDITED
"""A catalogue of one model, as an editor keeps it."""


@pytest.fixture
def quick(tmp_path) -> Path:
    return copy_sources(tmp_path / "quick", QUICK)


@pytest.fixture
def catalogued(tmp_path) -> Path:
    """A site folder whose catalogue holds one model."""
    (tmp_path / "site" / "data").mkdir(parents=True)
    (tmp_path / "site" / CATALOGUE).write_text(A_MODEL, encoding="utf-8")
    return tmp_path / "site"


def add(site: Path, config: Path = CONFIGS / "qwen3-8b.json", **given) -> tuple[str, str]:
    options = {"source_repository": "example/model", "source_revision": "abc1234", "model_id": "qwen3-8b", **given}
    return add_model(site, config, AddOptions(**options))


def refused(work, *args, **kwargs) -> list[str]:
    with pytest.raises(InputError) as error:
        work(*args, **kwargs)
    return [str(problem) for problem in error.value.problems]


def messages_of(error: pytest.ExceptionInfo) -> list[str]:
    return [str(problem) for problem in error.value.problems]


# -- an edit saved while a command runs is kept (issue 35, medium 6) -----------------------------------


CHANGED = ("changed on disk while {} ran (saved by an editor?); your change is kept and nothing was written: "
           "run {} again")


def test_prices_saved_during_an_import_are_kept_and_the_import_refused(quick, monkeypatch):
    prices = quick / PRICES
    saved = prices.read_text(encoding="utf-8").replace("usd: 0.41}", "usd: 0.39}")
    changes = prices_command._changes

    def save_meanwhile(*args):  # the editor saves between the import's read and its write
        report = changes(*args)
        prices.write_text(saved, encoding="utf-8")
        return report

    monkeypatch.setattr(prices_command, "_changes", save_meanwhile)
    assert refused(import_prices, quick, NOVEMBER) == [f"{prices}: {CHANGED.format('the import', 'the import')}"]
    assert prices.read_text(encoding="utf-8") == saved


def test_a_catalogue_saved_during_model_add_is_kept_and_the_add_refused(catalogued, monkeypatch):
    catalogue = catalogued / CATALOGUE
    saved = A_MODEL.replace('"Llama 3.1 8B"', '"Llama 3.1 8B, renamed"')
    with_entry = model_command.with_entry

    def save_meanwhile(*args):
        text = with_entry(*args)
        catalogue.write_text(saved, encoding="utf-8")
        return text

    monkeypatch.setattr(model_command, "with_entry", save_meanwhile)
    assert refused(add, catalogued) == [f"{CATALOGUE}: {CHANGED.format('model add', 'model add')}"]
    assert catalogue.read_text(encoding="utf-8") == saved


def test_a_catalogue_made_during_model_add_is_kept(tmp_path, monkeypatch):
    """No catalogue when the command read; one when it would write: the new one stays."""
    catalogue = tmp_path / CATALOGUE
    with_entry = model_command.with_entry

    def make_meanwhile(*args):
        text = with_entry(*args)
        catalogue.parent.mkdir(parents=True)
        catalogue.write_text(A_MODEL, encoding="utf-8")
        return text

    monkeypatch.setattr(model_command, "with_entry", make_meanwhile)
    assert refused(add, tmp_path) == [f"{CATALOGUE}: {CHANGED.format('model add', 'model add')}"]
    assert catalogue.read_text(encoding="utf-8") == A_MODEL


def hold_edit_lock(site: Path):
    """The site's edit lock taken as another command would hold it (a separate open file: flock conflicts)."""
    (site / ".cache").mkdir(exist_ok=True)
    handle = open(site / ".cache" / "sources.lock", "ab")
    fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
    return handle


@pytest.mark.parametrize("command", ["prices import", "model add"])
def test_a_command_waits_for_another_one_editing_the_site_then_refuses(quick, monkeypatch, command):
    monkeypatch.setattr(lock, "WAIT_S", 0.2)
    before = {name: (quick / "data" / name).read_bytes() for name in os.listdir(quick / "data")}
    with hold_edit_lock(quick):
        started = time.monotonic()
        problems = refused(import_prices, quick, NOVEMBER) if command == "prices import" else refused(add, quick)
        waited = time.monotonic() - started
    assert problems == [f"{quick}: another command was still rewriting this site's data after 0.2 s of waiting "
                        "(it holds .cache/sources.lock); try again when it has finished"]
    assert waited >= 0.2
    assert {name: (quick / "data" / name).read_bytes() for name in os.listdir(quick / "data")} == before


# -- every ruamel read of a data file has check's bounds first (medium 7) --------------------------------


def alias_bomb(levels: int, width: int) -> str:
    lines = ["lol:", '  l0: &l0 ["lol"]']
    for level in range(1, levels):
        lines.append(f"  l{level}: &l{level} [" + ", ".join([f"*l{level - 1}"] * width) + "]")
    return "\n".join(lines) + "\n"


NAME = 'name: "Llama 3.1 8B"   # quoted on purpose\n'
HOSTILE_YAML = {
    # small enough that code without the bound finishes (and writes) instead of hanging
    "alias bomb": alias_bomb(4, 10) + A_MODEL,
    "recursive alias": A_MODEL.replace(NAME, "name: &n [*n]\n"),
    "deep nesting": A_MODEL.replace(NAME, "name: " + "[" * 40 + "]" * 40 + "\n"),
    "a python tag": A_MODEL.replace(NAME, "name: !!python/object:os.system First\n"),
    "a repeated key": A_MODEL.replace(NAME, "name: First\n    name: Second\n"),
}


def checks_message(site: Path, relative: str) -> list[str]:
    """What `check`'s reader says of the file."""
    with pytest.raises(InputError) as error:
        read_yaml(site / relative, relative)
    return messages_of(error)


@pytest.mark.parametrize("case", sorted(HOSTILE_YAML))
def test_model_add_refuses_a_catalogue_check_refuses_with_checks_message(catalogued, case):
    (catalogued / CATALOGUE).write_text(HOSTILE_YAML[case], encoding="utf-8")
    with no_hang(20):
        problems = refused(add, catalogued)
    assert problems == checks_message(catalogued, CATALOGUE)
    assert (catalogued / CATALOGUE).read_text(encoding="utf-8") == HOSTILE_YAML[case]


def test_the_alias_bomb_of_the_issue_is_refused_at_once_by_the_command(tmp_path):
    """24 ** 8 strings once expanded: the command took 2.8 GB and was still growing after 60 s."""
    site = tmp_path / "site"
    (site / "data").mkdir(parents=True)
    (site / CATALOGUE).write_text(alias_bomb(9, 24) + A_MODEL, encoding="utf-8")
    limit = "import resource; resource.setrlimit(resource.RLIMIT_AS, (2 << 30, 2 << 30))"
    run = subprocess.run([sys.executable, "-c", f"{limit}; import runpy, sys; sys.argv = sys.argv[1:]; "
                                                 "runpy.run_path(sys.argv[0], run_name='__main__')",
                          str(ROOT / "build.py"), "model", "add", str(CONFIGS / "qwen3-8b.json"), "--site",
                          str(site), "--source-repository", "a/b", "--source-revision", "abc1234"],
                         capture_output=True, text=True, timeout=60)
    assert run.returncode == 1 and run.stderr.splitlines()[0] == (
        f"{site}/{CATALOGUE}:2: lol.l0: YAML anchor &l0 is not allowed; write the value out where it is used")


def test_prices_yaml_is_read_with_checks_bounds_before_it_is_rewritten():
    """A prices.yaml swapped for a bomb after the site loaded still never reaches ruamel."""
    text = alias_bomb(4, 10) + (QUICK / PRICES).read_text(encoding="utf-8")
    with no_hang(20), pytest.raises(InputError) as error:
        layout_problem(text)
    assert messages_of(error) == [f"{PRICES}:2: lol.l0: YAML anchor &l0 is not allowed; write the value out where "
                                  "it is used"]


# -- model add writes only what check accepts ----------------------------------------------------------


def edited_config(tmp_path: Path, name: str, **values) -> Path:
    value = json.loads((CONFIGS / f"{name}.json").read_text(encoding="utf-8"))
    value.update(values)
    path = tmp_path / "config.json"
    path.write_text(json.dumps(value, indent=2), encoding="utf-8")
    return path


def line_of(path: Path, text: str) -> int:
    return next(number for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1)
                if text in line)


SMALL_MIXTURE = dict(hidden_size=64, intermediate_size=1, num_attention_heads=8, num_key_value_heads=8,
                     vocab_size=100, num_hidden_layers=2)


@pytest.mark.parametrize("sizes, key, value, field, most", [
    # the issue's: small sizes, so that 2**31 experts still make a model the catalogue can state
    (SMALL_MIXTURE, "num_local_experts", 2**31, "experts.total", 100000),
    (SMALL_MIXTURE, "num_local_experts", 100001, "experts.total", 100000),
    ({}, "head_dim", 200000, "layers[0].head_dim", 100000),
    ({}, "max_position_embeddings", 2**31, "max_context", 100000000),
    ({}, "vocab_size", 100_000_001, "vocab_size", 100000000),
])
def test_values_the_catalogues_schema_refuses_are_refused_at_the_configs_key(tmp_path, sizes, key, value, field,
                                                                             most):
    config = edited_config(tmp_path, "mixtral-8x7b-v0.1", **sizes, **{key: value})
    assert refused(add, tmp_path / "site", config) == [
        f"{config}:{line_of(config, key)}: {key}: must be at most {most}, got {value} (a typo?) "
        f"(as the catalogue's {field})"]
    assert not (tmp_path / "site" / CATALOGUE).exists()


@pytest.mark.parametrize("given, expected", [
    ({"model_id": "qwen..3"}, "--id: text 'qwen..3' must be lower-case letters and digits joined by single dots or "
                              "dashes (as the catalogue's id)"),
    ({"name": "Q" * 81}, "--name: is longer than 80 characters (as the catalogue's name)"),
])
def test_options_the_catalogues_schema_refuses_are_refused_by_their_option(tmp_path, given, expected):
    assert refused(add, tmp_path, **given) == [expected]
    assert not (tmp_path / CATALOGUE).exists()


def test_an_entry_within_the_schema_is_added_as_before(tmp_path):
    config = edited_config(tmp_path, "mixtral-8x7b-v0.1", **SMALL_MIXTURE, num_local_experts=100000)
    add(tmp_path / "site", config)
    assert "experts: {total: 100000, active: 2, shared: 0}" in (tmp_path / "site" / CATALOGUE).read_text()


# -- config.json: a regular file, read no further than its bound, each key once, located at once ---------


def test_a_config_that_is_a_fifo_is_refused_at_once(tmp_path):
    """Opening a FIFO for reading waits for a writer; the command waited for ever."""
    fifo = tmp_path / "config.json"
    os.mkfifo(fifo)
    run = run_cli("model", "add", str(fifo), "--site", str(tmp_path), "--source-repository", "a/b",
                  "--source-revision", "abc1234", "--dry-run", timeout=60)
    assert run.returncode == 1 and run.stderr.splitlines()[0] == f"{fifo}: is a FIFO (named pipe), not a regular file; give a plain file"


def test_a_listing_export_that_is_a_fifo_is_refused_at_once(tmp_path):
    fifo = tmp_path / "listings.csv"
    os.mkfifo(fifo)
    with no_hang(20), pytest.raises(InputError) as error:
        read_snapshot(fifo, {}, [])
    assert messages_of(error) == [f"{fifo}: is a FIFO (named pipe), not a regular file; give a plain file"]


@pytest.mark.parametrize("where", ["folder", "character device"])
def test_a_config_that_is_no_file_is_refused(tmp_path, where):
    path = tmp_path if where == "folder" else Path("/dev/null")
    with pytest.raises(InputError) as error:
        read_json(path, "config.json")
    assert messages_of(error) == [f"config.json: is a {where}, not a regular file; give a plain file"]


def test_a_config_over_the_bound_is_read_no_further_than_the_bound(tmp_path, monkeypatch):
    """The bound was checked after reading the whole file: 1 GB read to refuse it."""
    config = tmp_path / "config.json"
    with open(config, "wb") as file:
        file.truncate(50_000_000)  # sparse: no disk, but 50 MB to read
    monkeypatch.setattr(json_file, "MAX_BYTES", 1000)
    tracemalloc.start()
    try:
        with pytest.raises(InputError) as error:
            read_json(config, "config.json")
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert messages_of(error) == ["config.json: larger than 1,000 bytes: not a model's config file"]
    assert peak < 1_000_000


LLAMA = (CONFIGS / "llama-3.1-8b.json").read_text(encoding="utf-8")


@pytest.mark.parametrize("text, expected", [
    # the issue's: json keeps the last value, 80 layers where the file also says 32
    (LLAMA.replace('"num_hidden_layers": 32,', '"num_hidden_layers": 32,\n  "num_hidden_layers": 80,'),
     ":{}: num_hidden_layers: given twice in one object (first at line {})"),
    # written another way: an escape spells the same key
    (LLAMA.replace('"num_hidden_layers": 32,', '"num_hidden_layers": 32,\n  "num_hidden_l\\u0061yers": 80,'),
     ":{}: num_hidden_layers: given twice in one object (first at line {})"),
    # inside an object of the config
    (LLAMA.replace('"rope_type": "llama3"', '"rope_type": "llama3",\n    "factor": 2.0'),
     ":{}: rope_scaling.factor: given twice in one object (first at line {})"),
])
def test_a_key_given_twice_is_refused_at_its_second_line(tmp_path, text, expected):
    config = tmp_path / "config.json"
    config.write_text(text, encoding="utf-8")
    lines = text.splitlines()
    key = expected.split(": ")[1].rsplit(".", 1)[-1]
    at = [number for number, line in enumerate(lines, 1) if line.strip().startswith(f'"{key[:10]}')]
    with pytest.raises(InputError) as error:
        read_json(config, "config.json")
    assert messages_of(error) == ["config.json" + expected.format(at[-1], at[0]) + "; which value is meant? keep one"]


def big_config(tmp_path: Path, name: str) -> Path:
    value = {"padding": ["x" * 8] * 250_000, **json.loads(LLAMA)}  # 3 MB of strings before the keys
    path = tmp_path / name
    path.write_text(json.dumps(value, indent=0), encoding="utf-8")
    return path


def test_the_lines_of_a_configs_keys_are_found_once_not_once_per_problem(tmp_path):
    """Each located problem scanned the whole text again: 8.7 s for 6 problems on a 20 MB config."""
    keys = [key for key in json.loads(LLAMA) if key != "padding"][:20]

    def seconds(paths: list[tuple[str, ...]]) -> float:
        file = read_json(big_config(tmp_path, f"{len(paths)}.json"), "config.json")
        started = time.perf_counter()
        for path in paths:
            assert file.line_of(path) is not None
        return time.perf_counter() - started

    one = seconds([(keys[-1],)])
    twenty = seconds([(key,) for key in keys])
    assert twenty < 3 * one + 0.05, (one, twenty)


# -- listing exports: ASCII digits, some machine, a snapshot not from the future -------------------------


NAMES, _ = card_names(QUICK)
CARDS = sorted(set(NAMES.values()))
STAMP = "# snapshot: 2026-11-30 09:00 UTC\n"
HEADER = "gpu,machine_id,usd_per_gpu_hour,gpus\n"


def export_problems(tmp_path: Path, text: str, name: str = "listings.csv") -> list[str]:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    _export, _rows, _snapshot, problems = read_snapshot(path, NAMES, CARDS)
    return [str(problem).removeprefix(f"{path}") for problem in problems]


@pytest.mark.parametrize("price, gpus, field", [
    ("٠.٤١", "8", "usd_per_gpu_hour"),  # Arabic-Indic digits: Decimal reads 0.41
    ("０.４１", "8", "usd_per_gpu_hour"),  # fullwidth
    ("0.41", "８", "gpus"),  # int() reads 8
    ("0.41", "৮", "gpus"),  # Bengali
])
def test_digits_of_other_scripts_are_refused(tmp_path, price, gpus, field):
    problems = export_problems(tmp_path, STAMP + HEADER + f"RTX 4090,n-01,{price},{gpus}\n")
    assert [problem.split(":")[1:3] for problem in problems] == [["3", f" {field}"]]


@pytest.mark.parametrize("text, name", [
    (STAMP + HEADER, "listings.csv"),  # the issue's: a header and no rows set every price to null
    (STAMP + HEADER + "\n\n", "listings.csv"),
    ('{"snapshot_at": "2026-11-30 09:00 UTC"}\n', "listings.jsonl"),
])
def test_an_export_listing_no_machine_is_refused(tmp_path, text, name):
    assert export_problems(tmp_path, text, name) == [
        ": lists no machine: importing it would take every card's price away; is it the whole export?"]


def stamped(moment: datetime) -> str:
    return f"{moment:%Y-%m-%d %H:%M} UTC"


NOW = datetime.now(timezone.utc).replace(tzinfo=None)


@pytest.mark.parametrize("text", ["9999-12-31 23:59 UTC", stamped(NOW + timedelta(days=2))])
def test_a_snapshot_from_the_future_is_refused(text):
    at, problems = snapshot_time(None, Export("listings.csv", [], (text, 1)))
    assert at is None and len(problems) == 1
    assert str(problems[0]).startswith(f"listings.csv:1: snapshot_at: {text!r} is in the future (later than now "
                                       "and a day's leeway, ")


def test_a_snapshot_within_a_day_of_now_is_taken():
    """Clocks drift, and an export may be stamped in a zone ahead of UTC."""
    text = stamped(NOW + timedelta(hours=12))
    assert snapshot_time(text, Export("listings.csv", [])) == (text, [])


def test_a_snapshot_time_in_other_digits_is_no_snapshot_time():
    at, problems = snapshot_time("２０２６-11-30 09:00 UTC", Export("listings.csv", []))
    assert [str(problem) for problem in problems] == [
        "--at: '２０２６-11-30 09:00 UTC' is not a snapshot time: write YYYY-MM-DD HH:MM UTC (a snapshot is dated "
        "to the minute)"]


# -- a data file that is a link ---------------------------------------------------------------------------


def test_prices_linked_inside_the_site_are_written_through_the_link(quick):
    (quick / PRICES).rename(quick / "prices-shared.yaml")
    (quick / PRICES).symlink_to("../prices-shared.yaml")
    import_prices(quick, NOVEMBER)
    assert os.readlink(quick / PRICES) == "../prices-shared.yaml"
    assert 'updated: "2026-11-30 09:00 UTC"' in (quick / "prices-shared.yaml").read_text(encoding="utf-8")


def test_prices_linked_out_of_the_site_are_refused(tmp_path, quick):
    outside = tmp_path / "elsewhere.yaml"
    (quick / PRICES).rename(outside)
    (quick / PRICES).symlink_to(outside)
    before = outside.read_bytes()
    assert refused(import_prices, quick, NOVEMBER) == [
        f"{quick / PRICES}: is a link to {str(outside)!r}, outside the site's folders; a command writes only "
        "inside the site: put the file itself there"]
    assert (quick / PRICES).is_symlink() and outside.read_bytes() == before


def test_a_catalogue_linked_inside_the_site_is_written_through_the_link(catalogued):
    (catalogued / CATALOGUE).rename(catalogued / "catalogue.yaml")
    (catalogued / CATALOGUE).symlink_to("../catalogue.yaml")
    add(catalogued)
    assert (catalogued / CATALOGUE).is_symlink()
    assert "id: qwen3-8b" in (catalogued / "catalogue.yaml").read_text(encoding="utf-8")


def test_a_catalogue_linked_out_of_the_site_is_refused(tmp_path, catalogued):
    outside = tmp_path / "elsewhere.yaml"
    (catalogued / CATALOGUE).rename(outside)
    (catalogued / CATALOGUE).symlink_to(outside)
    assert refused(add, catalogued) == [
        f"{CATALOGUE}: is a link to {str(outside)!r}, outside the site's folders; a command writes only inside "
        "the site: put the file itself there"]
    assert (catalogued / CATALOGUE).is_symlink() and outside.read_text(encoding="utf-8") == A_MODEL


def test_a_catalogue_that_is_a_loop_of_links_is_refused(catalogued):
    (catalogued / CATALOGUE).unlink()
    (catalogued / CATALOGUE).symlink_to("catalogue.yaml")
    assert refused(add, catalogued) == [f"{CATALOGUE}: is a link that leads round in a loop"]
    assert (catalogued / CATALOGUE).is_symlink()


# -- a killed import leaves no copy of the sources in the temporary folder ------------------------------


KILLED_DURING_THE_BUILD = """
import os, signal, sys
from vramsite.listings import command
built = command.site_text
def site_text(root):
    if root != command.Path(sys.argv[2]):  # the copy with the imported prices: die while it is there
        os.kill(os.getpid(), signal.SIGKILL)
    return built(root)
command.site_text = site_text
command.import_prices(command.Path(sys.argv[2]), command.Path(sys.argv[1]))
"""


def test_a_killed_import_leaves_its_copy_in_the_sites_cache_for_the_next_to_clear(tmp_path, quick):
    temporary = tmp_path / "tmp"
    temporary.mkdir()
    run = subprocess.run([sys.executable, "-c", KILLED_DURING_THE_BUILD, str(NOVEMBER), str(quick)], cwd=ROOT,
                         env={**os.environ, "TMPDIR": str(temporary), "PYTHONPATH": str(ROOT)},
                         capture_output=True, text=True, timeout=120)
    assert run.returncode == -signal.SIGKILL, run.stderr
    assert list(temporary.iterdir()) == []
    left = quick / ".cache" / "prices-import"
    assert (left / PRICES).is_file()
    import_prices(quick, NOVEMBER)
    assert not left.exists()


def test_prices_import_into_no_folder_makes_none(tmp_path):
    assert refused(import_prices, tmp_path / "nowhere", NOVEMBER) == [
        f"{tmp_path / 'nowhere'}: no such folder: give the site's folder with --site"]
    assert not (tmp_path / "nowhere").exists()

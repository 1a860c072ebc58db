"""The price workflow (.github/workflows/prices.yml): what starts it, what keeps it off, and that its import
step runs the real command and hands its report to the pull request. GitHub Actions cannot run here: the
file is read as YAML, and the import step's own shell script is run as the runner would run it."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys

import pytest
import yaml

from cli_support import ROOT, copy_sources

WORKFLOW = ROOT / ".github" / "workflows" / "prices.yml"
LISTINGS = ROOT / "tests" / "fixtures" / "listings"
COMMAND = ".venv/bin/python build.py prices import import/listings --site sites/quick"


@pytest.fixture(scope="module")
def workflow() -> dict:
    return yaml.safe_load(WORKFLOW.read_text(encoding="utf-8"))


def job(workflow: dict) -> dict:
    return workflow["jobs"]["import"]


def step_running(workflow: dict, text: str) -> dict:
    found = [step for step in job(workflow)["steps"] if text in step.get("run", "")]
    assert len(found) == 1, f"one step runs {text!r}"
    return found[0]


def step_using(workflow: dict, action: str) -> dict:
    found = [step for step in job(workflow)["steps"] if step.get("uses", "").startswith(action)]
    assert len(found) == 1, f"one step uses {action}"
    return found[0]


def test_it_runs_on_a_schedule_and_by_hand(workflow):
    triggers = workflow.get("on", workflow.get(True))  # YAML 1.1 reads the bare key `on` as true
    assert set(triggers) == {"schedule", "workflow_dispatch"}
    assert len(triggers["schedule"][0]["cron"].split()) == 5


def test_it_stays_off_until_the_listing_url_is_set(workflow):
    assert job(workflow)["if"].replace(" ", "") == "${{vars.PRICES_LISTINGS_URL!=''}}"
    download = step_running(workflow, "curl ")
    assert download["env"]["LISTINGS_URL"] == "${{ vars.PRICES_LISTINGS_URL }}"
    curl = download["run"]
    for option in ("--fail", "--proto '=https'", "--proto-redir '=https'", "--max-filesize 64000000",
                   '--output import/listings "$LISTINGS_URL"'):
        assert option in curl, option


def test_the_change_goes_to_a_pull_request_with_the_imports_report(workflow):
    step_running(workflow, COMMAND)
    pull_request = step_using(workflow, "peter-evans/create-pull-request@")
    names = [step.get("name") for step in job(workflow)["steps"]]
    assert names.index(pull_request["name"]) > names.index(step_running(workflow, COMMAND)["name"])
    assert pull_request["with"]["add-paths"].split() == ["sites/quick/data/prices.yaml",
                                                         "sites/quick/data/price_history.yaml"]
    assert pull_request["with"]["body-path"] == "import/pull-request.md"
    assert "steps.import.outputs.at" in pull_request["with"]["title"]
    assert set(workflow["permissions"]) == {"contents", "pull-requests"}


def run_import_step(workflow: dict, tmp_path, listing: str) -> tuple[subprocess.CompletedProcess, object]:
    """The import step's script in a runner folder: this repository's build.py, a .venv that runs this Python,
    a copy of sites/quick, and the downloaded export."""
    work = tmp_path / "runner"
    (work / ".venv" / "bin").mkdir(parents=True)
    python = work / ".venv" / "bin" / "python"
    python.write_text(f'#!/bin/sh\nexec "{sys.executable}" "$@"\n', encoding="utf-8")
    python.chmod(0o755)
    (work / "build.py").symlink_to(ROOT / "build.py")
    copy_sources(work / "sites" / "quick", ROOT / "sites" / "quick")
    (work / "import").mkdir()
    shutil.copyfile(LISTINGS / listing, work / "import" / "listings")
    (work / "import" / "downloaded-at").write_text("2026-12-01 06:23 UTC\n", encoding="utf-8")
    env = {**os.environ, "GITHUB_OUTPUT": str(tmp_path / "output"), "GITHUB_STEP_SUMMARY": str(tmp_path / "summary")}
    step = step_running(workflow, COMMAND)
    run = subprocess.run(["bash", "--noprofile", "--norc", "-eo", "pipefail", "-c", step["run"]], cwd=work,
                         env=env, capture_output=True, text=True, timeout=300)
    return run, work


def test_the_import_step_writes_the_prices_and_the_pull_request_text(workflow, tmp_path):
    run, work = run_import_step(workflow, tmp_path, "november.csv")
    assert run.returncode == 0, run.stderr
    prices = (work / "sites" / "quick" / "data" / "prices.yaml").read_text(encoding="utf-8")
    assert 'updated: "2026-12-01 06:23 UTC"' in prices and "{gpu: h100, usd: 1.60}" in prices
    history = (work / "sites" / "quick" / "data" / "price_history.yaml").read_text(encoding="utf-8")
    assert history.count("  - at: ") == 2 and '  - at: "2026-12-01 06:23 UTC"' in history
    body = (work / "import" / "pull-request.md").read_text(encoding="utf-8")
    report = (work / "import" / "report.md").read_text(encoding="utf-8")
    assert body.startswith("Lowest prices per GPU-hour from the listing export downloaded at 2026-12-01 06:23 UTC")
    assert report.startswith("### What this change does to `sites/quick`") and report in body
    assert "- H100 · Lowest price: $1.65/GPU-hour → $1.60/GPU-hour" in report.splitlines()
    assert (tmp_path / "output").read_text(encoding="utf-8") == "at=2026-12-01 06:23 UTC\n"
    assert (tmp_path / "summary").read_text(encoding="utf-8") == body


def test_a_refused_export_fails_the_step_and_says_why_in_the_summary(workflow, tmp_path):
    original = (ROOT / "sites" / "quick" / "data" / "prices.yaml").read_bytes()
    run, work = run_import_step(workflow, tmp_path, "bad.csv")
    assert run.returncode == 1
    summary = (tmp_path / "summary").read_text(encoding="utf-8")
    assert summary.startswith("### The listing export of 2026-12-01 06:23 UTC was refused\n")
    assert "import/listings:3: gpu: unknown GPU 'A40'" in summary and "12 problems; nothing was written." in summary
    assert "import/listings:3: gpu: unknown GPU 'A40'" in run.stderr
    assert (work / "sites" / "quick" / "data" / "prices.yaml").read_bytes() == original
    assert (work / "sites" / "quick" / "data" / "price_history.yaml").read_bytes() == \
        (ROOT / "sites" / "quick" / "data" / "price_history.yaml").read_bytes()
    assert not (tmp_path / "output").exists() and not (work / "import" / "pull-request.md").exists()

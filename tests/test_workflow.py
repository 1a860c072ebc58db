"""CI's workflow (.github/workflows/site.yml): what starts it, what it builds, tests and publishes, and that
a pull request gets its diff report even when the tests fail. GitHub Actions cannot run here: the file is
read as YAML, and the diff step's own shell script is run as the runner would run it."""

from __future__ import annotations

import os
import re
import subprocess

import pytest
import yaml

from cli_support import ROOT
from vramsite.layout import SiteLayout
from vramsite.signed_cache import KEY_VARIABLE

WORKFLOW = ROOT / ".github" / "workflows" / "site.yml"
SOURCES = ("data/**", "content/**", "templates/**", "locales/**", "sites/**", "vramsite/**")


@pytest.fixture(scope="module")
def workflow() -> dict:
    return yaml.safe_load(WORKFLOW.read_text(encoding="utf-8"))


def triggers(workflow: dict) -> dict:
    return workflow.get("on", workflow.get(True))  # YAML 1.1 reads the bare key `on` as true


def steps(workflow: dict, job: str = "build") -> list[dict]:
    return workflow["jobs"][job]["steps"]


def step_running(workflow: dict, command: str) -> dict:
    found = [step for step in steps(workflow) if command in step.get("run", "")]
    assert len(found) == 1, f"one step runs {command!r}"
    return found[0]


def runs_despite_failures(condition: str) -> bool:
    return "always()" in condition or "!cancelled()" in condition


@pytest.mark.parametrize("event", ["push", "pull_request"])
def test_every_source_folder_starts_it(workflow, event):
    paths = triggers(workflow)[event]["paths"]
    assert set(SOURCES) <= set(paths)


def test_the_diff_report_is_made_and_posted_when_tests_fail(workflow):
    diff = step_running(workflow, ".venv/bin/python build.py diff")
    assert runs_despite_failures(diff["if"]) and "pull_request" in diff["if"]
    upload = next(step for step in steps(workflow) if step.get("uses", "").startswith("actions/upload-artifact"))
    assert runs_despite_failures(upload["if"])
    comment = workflow["jobs"]["comment"]
    assert comment["needs"] == "build" and runs_despite_failures(comment["if"])
    # the report learns how the tests went from the step that ran them
    tests = step_running(workflow, "bash .ci/run")
    assert diff["env"]["TESTS"] == f"${{{{ steps.{tests['id']}.outcome }}}}"


def test_both_sites_are_checked_against_the_base(workflow):
    check = step_running(workflow, ".venv/bin/python build.py check")
    assert "sites/quick" in check["run"] and '--base "$BASE"' in check["run"]
    assert check["env"]["BASE"] == "${{ github.event.pull_request.base.sha }}"


def test_the_quick_site_is_published_inside_the_pages_artifact(workflow):
    build = step_running(workflow, "--site sites/quick --out")
    out = re.search(r"--out (\S+)", build["run"]).group(1)
    pages = next(step for step in steps(workflow) if step.get("uses", "").startswith("actions/upload-pages-artifact"))
    published = pages["with"]["path"].rstrip("/")
    # Builds publish a link to a version folder: the artifact is assembled from dereferenced copies.
    assert f"cp -RL site/. {published}/" in build["run"]
    assert f"cp -RL {out}/. {published}/quick/" in build["run"]
    names = [step.get("name") for step in steps(workflow)]
    assert names.index(build["name"]) > names.index(step_running(workflow, "bash .ci/run")["name"])
    assert names.index(build["name"]) < names.index(pages["name"])
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    section = re.search(r"## A second site\n(.*?)(?=\n## |\Z)", readme, re.S).group(1)
    assert f"`{out}/`" in section and f"`{published}/quick/`" in section


def run_diff_step(workflow: dict, tmp_path, tests: str) -> tuple[subprocess.CompletedProcess, str]:
    """The diff step's script, in a folder holding this repository's build.py and .venv, as the runner runs it."""
    work = tmp_path / "runner"
    work.mkdir()
    for name in ("build.py", ".venv"):
        (work / name).symlink_to(ROOT / name)
    summary = tmp_path / "summary.md"
    step = step_running(workflow, ".venv/bin/python build.py diff")
    env = {**os.environ, "BASE": "HEAD", "PR": "17", "TESTS": tests, "CHECK": "success",
           "GITHUB_STEP_SUMMARY": str(summary)}
    run = subprocess.run(["bash", "--noprofile", "--norc", "-eo", "pipefail", "-c", step["run"]], cwd=work,
                         env=env, capture_output=True, text=True, timeout=600)
    assert run.returncode == 0, run.stderr
    report = (work / "report" / "diff.md").read_text(encoding="utf-8")
    assert (work / "report" / "pr").read_text(encoding="utf-8") == "17\n"
    assert summary.read_text(encoding="utf-8") == report
    return run, report


def test_the_diff_step_says_when_the_tests_failed(workflow, tmp_path):
    _run, report = run_diff_step(workflow, tmp_path, tests="failure")
    first, _, rest = report.partition("\n\n")
    assert first.startswith("> [!WARNING]\n> **Tests failed**: the tests (.ci/run: failure) did not pass")
    # then the report itself (or why it could not be made, where this copy has no git history)
    assert rest.startswith(("No figure changed.", "### What this change does to"))


def test_the_diff_step_after_passing_tests_is_the_report_alone(workflow, tmp_path):
    _run, report = run_diff_step(workflow, tmp_path, tests="success")
    assert "Tests failed" not in report
    assert report.startswith(("No figure changed.", "### What this change does to"))


def test_compiled_templates_are_kept_between_runs_for_every_site(workflow):
    cache = next(step for step in steps(workflow) if step.get("uses", "").startswith("actions/cache"))
    sites = [ROOT, *sorted(path for path in (ROOT / "sites").iterdir() if (path / "content").is_dir())]
    kept = set(cache["with"]["path"].split())
    assert kept == {SiteLayout(site).code_cache.relative_to(ROOT).as_posix() for site in sites}
    hashed = re.search(r"hashFiles\((.*)\)", cache["with"]["key"]).group(1)
    for folder in ("content", "templates"):
        assert f"'{folder}/**'" in hashed and f"'sites/*/{folder}/**'" in hashed
    assert cache["with"]["key"].startswith(cache["with"]["restore-keys"])
    names = [step.get("name") for step in steps(workflow)]
    assert names.index(cache["name"]) < names.index(step_running(workflow, "bash .ci/run")["name"])


def test_every_build_signs_its_caches_with_the_repository_secret(workflow):
    """The job's env, so .ci/run, check and the quick site's build all sign and check with one key: the one
    the cache restored from main was signed with (vramsite/signed_cache.py)."""
    job = workflow["jobs"]["build"]
    assert job["env"][KEY_VARIABLE] == "${{ secrets.%s }}" % KEY_VARIABLE
    assert not [step["name"] for step in job["steps"] if KEY_VARIABLE in step.get("env", {})], "one key for all"

"""One build never removes or writes among another output's versions.

A build publishes OUT as a link to a version folder and then removes old
versions. A ``site`` link committed (or left) pointing at another output,
``site -> sites/quick/site``, used to make the main site's build publish into
the quick site's versions folder and remove the quick site's current version.
Now such an output is refused before anything is written, and a build removes
only versions of its own output: every old one in OUT.versions, and in a
folder of releases a deployed link points into, only the one it replaced.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from cli_support import ROOT, copy_sources, hashes, run_build, run_cli
from vramsite.errors import InputError
from vramsite.publish.output import check_location
from vramsite.publish.writer import write_site

QUICK = ROOT / "sites" / "quick"


@pytest.fixture
def repository(tmp_path) -> Path:
    """A main site with the quick site in sites/quick/, the quick site built (its site a link to a version).
    The main site is the quick site's sources with one more sentence: another site, as cheap to build."""
    root = copy_sources(tmp_path / "repo", QUICK)
    guide = root / "content" / "en" / "gpus.md"
    guide.write_text(guide.read_text(encoding="utf-8") + "\nThe main site.\n", encoding="utf-8")
    quick = copy_sources(root / "sites" / "quick", QUICK)
    run = run_build(quick)
    assert run.returncode == 0, run.stderr
    return root


def published(quick: Path) -> tuple[str, dict[str, str]]:
    """Where the quick site's link points, and what it holds."""
    return os.readlink(quick / "site"), hashes(quick / "site")


def test_a_site_linked_to_another_sites_output_is_refused_and_that_site_kept(repository):
    quick = repository / "sites" / "quick"
    before = published(quick)
    (repository / "site").symlink_to("sites/quick/site")
    run = run_cli("build", "--force", "--site", str(repository))
    assert run.returncode == 1, run.stdout
    assert run.stderr.splitlines() == [
        f"{repository / 'site'}: output folder: is a link to another link, {quick / 'site'}, whose versions are "
        "not this output's; choose another with --out", "1 problem; nothing was written."]
    assert published(quick) == before
    assert sorted(path.name for path in (quick / "site.versions").iterdir()) == [Path(before[0]).name]
    assert not (repository / "site.versions").exists()


def quick_version(repository: Path) -> Path:
    return Path(os.path.realpath(repository / "sites" / "quick" / "site"))


@pytest.mark.parametrize("out, reason", [
    (lambda root: root / "site", "leads to {version}, in {version.parent}, the versions of another output"),
    (lambda root: root / "sites" / "quick" / "site" / "sub",
     "leads to {version}/sub, inside {version}, a site another build published"),
], ids=["a link to its current version", "a folder inside its published site"])
def test_an_output_among_another_outputs_versions_is_refused(repository, out, reason):
    version = quick_version(repository)
    (repository / "site").symlink_to(version)
    with pytest.raises(InputError) as refused:
        check_location(out(repository), repository)
    assert str(refused.value) == (f"{out(repository)}: output folder: {reason.format(version=version)}; "
                                  "choose another with --out")


def test_a_versions_folder_that_is_a_link_is_refused(repository):
    quick_versions = repository / "sites" / "quick" / "site.versions"
    (repository / "site.versions").symlink_to(quick_versions)
    with pytest.raises(InputError, match=f"keeps its versions in {repository / 'site.versions'}, which is a link"):
        check_location(repository / "site", repository)


def test_writing_through_another_outputs_link_is_refused_by_the_writer_too(repository):
    before = published(repository / "sites" / "quick")
    (repository / "site").symlink_to("sites/quick/site")
    with pytest.raises(InputError, match="is a link to another link"):
        write_site({"index.html": b"main"}, repository / "site")
    assert published(repository / "sites" / "quick") == before


def test_two_outputs_deployed_into_one_folder_of_releases_keep_each_others_versions(tmp_path):
    """a/public and b/public both links into releases/: a build of one removes only the version it replaced."""
    releases = tmp_path / "releases"
    for name in ("a", "b"):
        (releases / f"first-{name}").mkdir(parents=True)
        (tmp_path / name).mkdir()
        (tmp_path / name / "public").symlink_to(releases / f"first-{name}")
    write_site({"index.html": b"b"}, tmp_path / "b" / "public")
    b_version = os.readlink(tmp_path / "b" / "public")
    for text in (b"a, first", b"a, second"):
        write_site({"index.html": text}, tmp_path / "a" / "public")
    assert (tmp_path / "b" / "public" / "index.html").read_bytes() == b"b"
    assert sorted(path.name for path in releases.iterdir()) == sorted(
        ["first-a", "first-b", Path(b_version).name, Path(os.readlink(tmp_path / "a" / "public")).name])

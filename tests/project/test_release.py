"""Releases: one version source, the changelog's notes, and the release workflow read as data."""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
import tarfile
import tomllib
import zipfile
from pathlib import Path
from typing import Any

import pytest
from packaging.version import Version

import parkbot
from tests.support.workflows import PINNED, VERSION_COMMENT, load, steps_of, uses_lines

ROOT = Path(__file__).resolve().parents[2]
RELEASE = ROOT / ".github" / "workflows" / "release.yml"
NOTES = ROOT / ".ci" / "release-notes"
CHANGELOG = ROOT / "CHANGELOG.md"


def notes(*args: str, root: Path = ROOT) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, str(NOTES), *args, "--root", str(root)], capture_output=True, text=True, check=False
    )


# --- one version ------------------------------------------------------------------------------------


def test_pyproject_takes_its_version_from_bot_and_pins_the_build_backend() -> None:
    pyproject = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    assert "version" not in pyproject["project"]
    assert pyproject["project"]["dynamic"] == ["version"]
    assert pyproject["tool"]["setuptools"]["dynamic"]["version"] == {"attr": "parkbot.__version__"}
    assert pyproject["build-system"]["build-backend"] == "setuptools.build_meta"
    assert all("==" in spec for spec in pyproject["build-system"]["requires"])


def test_the_built_wheel_and_sdist_carry_the_version_parkbot_prints(tmp_path: Path) -> None:
    source = tmp_path / "source"
    source.mkdir()
    for name in ("pyproject.toml", "README.md"):
        shutil.copy(ROOT / name, source / name)
    shutil.copytree(ROOT / "bot", source / "bot", ignore=shutil.ignore_patterns("__pycache__"))
    dist = tmp_path / "dist"
    dist.mkdir()
    # The PEP 517 hooks `python -m build` calls (each in a fresh process, as build frontends do), run
    # offline with the pinned backend of the test extras.
    names = []
    for hook in ("build_wheel", "build_sdist"):
        code = f"import sys; from setuptools import build_meta as m; print('BUILT', m.{hook}(sys.argv[1]))"
        built = subprocess.run(
            [sys.executable, "-c", code, str(dist)], cwd=source, capture_output=True, text=True, check=False
        )
        assert built.returncode == 0, built.stderr[-3000:]
        names.append(next(line for line in built.stdout.splitlines() if line.startswith("BUILT ")).split()[1])
    wheel_name, sdist_name = names

    with zipfile.ZipFile(dist / wheel_name) as wheel:
        metadata = next(n for n in wheel.namelist() if n.endswith(".dist-info/METADATA"))
        wheel_version = re.search(r"^Version: (\S+)$", wheel.read(metadata).decode(), re.M)
        entry_points = wheel.read(metadata.replace("METADATA", "entry_points.txt")).decode()
    with tarfile.open(dist / sdist_name) as sdist:
        member = next(m for m in sdist.getmembers() if m.name.count("/") == 1 and m.name.endswith("/PKG-INFO"))
        handle = sdist.extractfile(member)
        assert handle is not None
        sdist_version = re.search(r"^Version: (\S+)$", handle.read().decode(), re.M)
    assert wheel_version is not None
    assert sdist_version is not None
    assert "parkbot = parkbot.cli:main" in entry_points

    script = Path(sys.executable).with_name("parkbot")
    printed = subprocess.run([str(script), "--version"], capture_output=True, text=True, check=True).stdout
    assert printed.strip() == f"parkbot, version {parkbot.__version__}"
    assert wheel_version.group(1) == sdist_version.group(1) == parkbot.__version__
    assert wheel_name == f"parkbot-{parkbot.__version__}-py3-none-any.whl"


# --- the changelog and the notes of a release -------------------------------------------------------


#: A development version: the release it leads to, then ``.devN``.
DEV_VERSION = re.compile(r"^(?P<release>\d+\.\d+\.\d+)\.dev\d+$")


def released_versions(text: str) -> list[str]:
    """The versions with a dated CHANGELOG section, newest first."""
    return re.findall(r"^## \[(\d+\.\d+\.\d+(?:(?:a|b|rc)\d+)?)\] - \d{4}-\d{2}-\d{2}$", text, flags=re.M)


def test_changelog_keeps_an_unreleased_section_and_dates_every_version() -> None:
    headings = [line for line in CHANGELOG.read_text(encoding="utf-8").splitlines() if line.startswith("## ")]
    assert headings[0] == "## [Unreleased]"
    for heading in headings[1:]:
        assert re.fullmatch(r"## \[\d+\.\d+\.\d+(?:(?:a|b|rc)\d+)?\] - \d{4}-\d{2}-\d{2}", heading), heading


def test_the_version_at_head_is_a_release_with_its_section_or_a_development_version_after_the_last() -> None:
    """Between releases the code is ``X.Y.Z.devN`` for a release still to come, never the last release's number."""
    released = released_versions(CHANGELOG.read_text(encoding="utf-8"))
    assert released, "CHANGELOG.md has no release yet"
    dev = DEV_VERSION.match(parkbot.__version__)
    if dev is None:
        assert parkbot.__version__ == released[0], "a release version must be the newest CHANGELOG section"
        return
    assert Version(dev.group("release")) > Version(released[0]), (
        f"{parkbot.__version__} must lead to a release after {released[0]}, the last one in CHANGELOG.md"
    )
    assert dev.group("release") not in released


def test_release_notes_are_the_changelog_section_of_the_tag(tmp_path: Path) -> None:
    """The notes of the last release, as its tag would get them (with the version set as at that release)."""
    text = CHANGELOG.read_text(encoding="utf-8")
    last = released_versions(text)[0]
    done = notes(f"v{last}", root=release_tree(tmp_path, last, text))
    assert done.returncode == 0, done.stderr
    section = text.split(f"## [{last}]", 1)[1].split("\n", 1)[1].split("\n## ", 1)[0].strip()
    assert done.stdout.strip() == section
    assert not re.search(r"^## ", done.stdout, re.M)


def test_a_development_version_cannot_be_released(tmp_path: Path) -> None:
    done = notes("v0.2.0.dev0", root=release_tree(tmp_path, "0.2.0.dev0", CHANGES))
    assert done.returncode == 2
    assert "has no section for 0.2.0.dev0" in done.stderr


# --- pins and the moving tag in the docs --------------------------------------------------------------

#: Every file that shows users how to refer to the action.
PIN_DOCS = [
    ROOT / "README.md",
    *sorted((ROOT / "docs").rglob("*.md")),
    *sorted((ROOT / "docs" / "workflows").glob("*.yml")),
]
#: A use of the action; the release after a sha pin is a comment (`# v0.1.0`), or parkbot init's --action-version.
ACTION_USE = re.compile(
    r"OWNER/REPO/actions/parkbot@(?P<ref><[^>]+>|\S+)(?:\s*(?:#|--action-version)\s*(?P<comment>.*))?"
)


def test_the_docs_pin_a_full_sha_with_a_release_or_name_the_major_tag_of_this_version() -> None:
    major = f"v{Version(parkbot.__version__).major}"
    released = released_versions(CHANGELOG.read_text(encoding="utf-8"))
    seen = 0
    for path in PIN_DOCS:
        for match in ACTION_USE.finditer(path.read_text(encoding="utf-8")):
            seen += 1
            ref, comment = match.group("ref").rstrip("`"), match.group("comment") or ""
            where = f"{path.relative_to(ROOT)}: {match.group(0)}"
            if re.fullmatch(r"[0-9a-f]{40}|<full commit sha>|<sha>", ref):
                version = re.match(r"v(\d+\.\d+\.\d+)", comment)
                assert version, f"{where}: a sha pin says its release in a comment (# v0.1.0) or --action-version"
                assert version.group(1) in released, f"{where}: {version.group(1)} is not a release in CHANGELOG.md"
            else:
                assert ref == major, f"{where}: the moving tag of {parkbot.__version__} is {major}"
    assert seen >= 7
    for path in [*PIN_DOCS, RELEASE]:
        text = path.read_text(encoding="utf-8")
        assert "parkbot@v1" not in text or major == "v1", f"{path.relative_to(ROOT)} names @v1"


def release_tree(tmp_path: Path, version: str, changelog: str) -> Path:
    (tmp_path / "bot" / "parkbot").mkdir(parents=True)
    (tmp_path / "bot" / "parkbot" / "__init__.py").write_text(
        f'"""x"""\n\n__version__ = "{version}"\n', encoding="utf-8"
    )
    (tmp_path / "CHANGELOG.md").write_text(changelog, encoding="utf-8")
    return tmp_path


CHANGES = """# Changelog

## [Unreleased]

- next

## [2.1.0rc1] - 2027-01-02

- candidate

## [2.0.0] - 2027-01-01

### Added

- the thing
"""


@pytest.mark.parametrize(
    ("version", "tag", "stdout"),
    [("2.0.0", "v2.0.0", "### Added\n\n- the thing\n"), ("2.1.0rc1", "refs/tags/v2.1.0rc1", "- candidate\n")],
)
def test_notes_of_a_tag(tmp_path: Path, version: str, tag: str, stdout: str) -> None:
    done = notes(tag, root=release_tree(tmp_path, version, CHANGES))
    assert (done.returncode, done.stdout) == (0, stdout)


@pytest.mark.parametrize(("version", "tag", "major"), [("2.0.0", "v2.0.0", "v2\n"), ("2.1.0rc1", "v2.1.0rc1", "")])
def test_only_a_final_release_moves_the_major_tag(tmp_path: Path, version: str, tag: str, major: str) -> None:
    done = notes("--major", tag, root=release_tree(tmp_path, version, CHANGES))
    assert (done.returncode, done.stdout) == (0, major)


@pytest.mark.parametrize(
    ("version", "tag", "changelog", "message"),
    [
        ("2.0.0", "v2.0.1", CHANGES, "does not match the package version 2.0.0"),
        ("2.0.0", "v2", CHANGES, "is not a release tag"),
        ("2.0.0", "release-2.0.0", CHANGES, "is not a release tag"),
        ("3.0.0", "v3.0.0", CHANGES, "has no section for 3.0.0"),
        ("2.0.0", "v2.0.0", "## [2.0.0] - 2027-01-01\n\n## [1.0.0] - 2026-01-01\n- a\n", "section of 2.0.0 is empty"),
        ("2.0.0", "v2.0.0", "## [2.0.0]\n- a\n", "has no date"),
    ],
)
def test_a_release_that_cannot_be_described_is_stopped(
    tmp_path: Path, version: str, tag: str, changelog: str, message: str
) -> None:
    done = notes(tag, root=release_tree(tmp_path, version, changelog))
    assert done.returncode == 2
    assert done.stdout == ""
    assert message in done.stderr
    assert "Traceback" not in done.stderr


# --- the release workflow ---------------------------------------------------------------------------


@pytest.fixture(scope="module")
def workflow() -> dict[str, Any]:
    data: dict[str, Any] = load(RELEASE)
    return data


def run_text(job: dict[str, Any]) -> str:
    return "\n".join(str(step.get("run", "")) for step in job.get("steps") or [])


def test_release_runs_on_version_tags_only(workflow: dict[str, Any]) -> None:
    assert set(workflow["on"]) == {"push"}
    push = workflow["on"]["push"]
    assert set(push) == {"tags"}
    assert push["tags"]
    assert all(tag.startswith("v[0-9]") for tag in push["tags"])
    assert workflow["concurrency"]["cancel-in-progress"] is False


def test_every_job_has_least_privilege_and_only_publish_gets_an_id_token(workflow: dict[str, Any]) -> None:
    assert workflow["permissions"] == {}
    jobs = workflow["jobs"]
    assert set(jobs) == {"build", "publish", "github-release", "major-tag"}
    assert jobs["build"]["permissions"] == {"contents": "read"}
    assert jobs["publish"]["permissions"] == {"id-token": "write"}
    assert jobs["github-release"]["permissions"] == {"contents": "write"}
    assert jobs["major-tag"]["permissions"] == {"contents": "write"}
    holders = [name for name, job in jobs.items() if "id-token" in job["permissions"]]
    assert holders == ["publish"]
    assert jobs["publish"]["environment"]["name"] == "pypi"
    assert jobs["publish"]["needs"] == "build"
    assert jobs["github-release"]["needs"] == "publish"
    assert jobs["major-tag"]["needs"] == "github-release"


def test_every_action_is_pinned_by_commit_with_its_version(workflow: dict[str, Any]) -> None:
    lines = uses_lines(RELEASE)
    assert lines
    for line in lines:
        ref = line.split("uses:", 1)[1].split("#")[0].strip()
        assert PINNED.match(ref), line
        assert VERSION_COMMENT.search(line), line
    publish = [s for s in workflow["jobs"]["publish"]["steps"] if "pypa/gh-action-pypi-publish@" in s.get("uses", "")]
    assert len(publish) == 1
    assert not any(
        "pypa/gh-action-pypi-publish@" in s.get("uses", "")
        for s in steps_of({"jobs": {name: job for name, job in workflow["jobs"].items() if name != "publish"}})
    )
    for step in steps_of(workflow):
        if step.get("uses", "").startswith("actions/checkout@"):
            assert step["with"]["persist-credentials"] is False
        assert "${{" not in str(step.get("run", ""))
    assert "password" not in str(publish[0].get("with", {}))  # trusted publishing, no stored token


def test_build_uses_the_pinned_lock_and_python_build(workflow: dict[str, Any]) -> None:
    build = run_text(workflow["jobs"]["build"])
    assert "--require-hashes --no-deps -r .ci/release-requirements.lock" in build
    assert "-m build --no-isolation" in build
    assert ".ci/release-notes" in build  # the tag is checked before anything is built


def test_the_github_release_takes_its_notes_from_the_changelog(workflow: dict[str, Any]) -> None:
    job = workflow["jobs"]["github-release"]
    text = run_text(job)
    assert "gh release create" in text
    assert "--notes-file" in text
    assert ".ci/release-notes" in text
    env = next(s["env"] for s in job["steps"] if "gh release create" in str(s.get("run", "")))
    assert env["GH_TOKEN"] == "${{ github.token }}"


def test_the_major_tag_moves_through_the_api(workflow: dict[str, Any]) -> None:
    job = workflow["jobs"]["major-tag"]
    text = run_text(job)
    assert "--major" in text
    assert "git/refs/tags/${major}" in text
    assert "git push" not in text.replace("git push --force origin", "")  # only in the by-hand advice

"""``parkbot report -o FILE``: the file's extension picks the format, unless --format says otherwise."""

from __future__ import annotations

import json
from pathlib import Path

import git
import pytest
from click.testing import CliRunner

from parkbot.cli import cli

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    root = tmp_path / "repo"
    repository = git.Repo.init(root, initial_branch="main")
    with repository.config_writer() as writer:
        writer.set_value("user", "name", "Alice")
        writer.set_value("user", "email", "alice@example.com")
    repository.index.commit("initial")
    parked = CliRunner().invoke(cli, ["park", str(ROOT / "examples" / "needs_input.json"), "--repo", str(root)])
    assert parked.exit_code == 0, parked.output
    return root


def report(repo: Path, *args: str) -> tuple[int, str]:
    result = CliRunner().invoke(cli, ["report", "--repo", str(repo), *args])
    return result.exit_code, result.stderr


@pytest.mark.parametrize(
    ("name", "starts"), [("report.html", "<!DOCTYPE html>"), ("report.HTM", "<!DOCTYPE html>"), ("r.json", "{")]
)
def test_the_extension_picks_the_format(repo: Path, tmp_path: Path, name: str, starts: str) -> None:
    target = tmp_path / name
    code, said = report(repo, "-o", str(target))
    assert code == 0, said
    assert target.read_text(encoding="utf-8").startswith(starts)
    assert f"to {target}" in said


def test_json_from_the_extension_is_a_report(repo: Path, tmp_path: Path) -> None:
    target = tmp_path / "report.json"
    assert report(repo, "-o", str(target))[0] == 0
    assert json.loads(target.read_text(encoding="utf-8"))["asked"] == 1


def test_markdown_for_md_and_for_an_extension_parkbot_does_not_know(repo: Path, tmp_path: Path) -> None:
    for name in ("report.md", "report.txt", "report"):
        target = tmp_path / name
        assert report(repo, "-o", str(target))[0] == 0
        text = target.read_text(encoding="utf-8")
        assert not text.startswith(("<!DOCTYPE", "{")), name


def test_format_wins_over_the_extension(repo: Path, tmp_path: Path) -> None:
    target = tmp_path / "report.html"
    assert report(repo, "-o", str(target), "--format", "md")[0] == 0
    assert not target.read_text(encoding="utf-8").startswith("<!DOCTYPE html>")


def test_json_output_and_an_html_file_disagree_and_say_so(repo: Path, tmp_path: Path) -> None:
    result = CliRunner().invoke(cli, ["report", "--repo", str(repo), "-o", str(tmp_path / "r.html"), "--json"])
    assert result.exit_code == 2
    assert "--format json" in json.loads(result.stdout)["message"]
    assert not (tmp_path / "r.html").exists()

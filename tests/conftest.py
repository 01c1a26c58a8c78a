"""Fixtures shared by the test modules; the plain helpers behind them are in ``tests/support/github_helpers.py``."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import git
import pytest

from parkbot.trackers.github import GitHubTracker
from tests.support.fakegithub import FakeGitHub
from tests.support.git_helpers import make_repo
from tests.support.github_helpers import fake_github, make_tracker


@pytest.fixture
def fake() -> Iterator[FakeGitHub]:
    """The fake GitHub answering requests for the test; afterwards no request may have broken GitHub's rules."""
    f = fake_github()
    with f.activate():
        yield f
    f.assert_no_violations()


@pytest.fixture
def tracker(fake: FakeGitHub) -> GitHubTracker:
    """A GitHubTracker on the ``fake`` repository."""
    return make_tracker(fake)


@pytest.fixture
def made_repo(tmp_path: Path) -> Iterator[git.Repo]:
    """A real repository with one commit on ``main`` (:func:`tests.support.git_helpers.make_repo`), closed after."""
    made = make_repo(tmp_path / "repo")
    yield made
    made.close()

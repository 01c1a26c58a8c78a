"""GitHubTracker is a facade over its parts: every capability it claims holds, and the parts share only public names."""

from __future__ import annotations

import ast
import inspect
from pathlib import Path

import pytest

import parkbot.trackers.github
from parkbot.core import capabilities
from parkbot.core import tracker as core
from parkbot.core.authority import SignedRecords
from parkbot.core.models import LogEntry
from parkbot.trackers.github import GitHubTracker
from tests.support.fakegithub import FakeGitHub
from tests.support.github_helpers import NOW

#: What the GitHub backend offers: the protocol, and every capability of parkbot.core.tracker (and of
#: parkbot.core.capabilities, which it re-exports) but syncing.
CLAIMED: tuple[type, ...] = (
    core.Tracker,
    core.Pollable,
    core.IssueComments,
    core.CommentRecords,
    core.OwnIdentityRecords,
    core.CommitGates,
    core.BranchRescan,
    core.FindsPullsByCommit,
    core.DashboardIssue,
    core.SeenDecisions,
    core.LoggedEvents,
    core.CommentReactions,
    core.UnindexedDecisions,
    core.CommandCommentFacts,
)
PACKAGE = Path(parkbot.trackers.github.__file__).parent
#: The modules GitHubTracker is composed of.
PARTS = ("tracker", "store", "issues", "comments", "answers", "dependents", "gate", "question_log")
PARTS += ("dashboard_issue", "access", "reactions")


def _is_protocol(cls: type) -> bool:
    return bool(getattr(cls, "_is_protocol", False))


def _members(protocol: type) -> list[str]:
    """The methods and attributes a protocol asks for (its own, not object's or Protocol's)."""
    names = {n for n in vars(protocol) if not n.startswith("_")}
    names |= set(getattr(protocol, "__annotations__", {}))
    return sorted(names)


def test_it_claims_exactly_the_capabilities_github_offers() -> None:
    modules = (core.__name__, capabilities.__name__)
    claimed = {base for base in GitHubTracker.__mro__ if _is_protocol(base) and base.__module__ in modules}
    assert claimed == set(CLAIMED)


@pytest.mark.parametrize("protocol", CLAIMED, ids=lambda p: p.__name__)
def test_every_claimed_capability_holds(tracker: GitHubTracker, protocol: type) -> None:
    assert isinstance(tracker, protocol)
    for name in _members(protocol):
        assert hasattr(tracker, name), f"{protocol.__name__}.{name} is missing"
        ours = inspect.getattr_static(GitHubTracker, name, None)
        theirs = vars(protocol).get(name)
        # A method the facade does not define would fall back to the protocol's empty body.
        assert ours is not theirs, f"GitHubTracker does not implement {protocol.__name__}.{name}"


def test_it_claims_nothing_github_cannot_do(tracker: GitHubTracker) -> None:
    assert not isinstance(tracker, core.Syncing)
    assert not isinstance(tracker, SignedRecords)


def test_a_call_reaches_the_part_that_does_it(fake: FakeGitHub, tracker: GitHubTracker) -> None:
    """The facade adds nothing: a refusal logged through it is one comment on the log issue, read back."""
    entry = LogEntry(event="refused", origin="billing-42", at=NOW, reason="budget")
    tracker.append_log(entry)
    assert fake.count("POST", r"/repos/acme/widgets/issues/\d+/comments") == 1
    assert list(tracker.iter_logged_events()) == [entry]
    assert tracker.pin_notice is None
    tracker.pin_notice = "could not pin"
    assert tracker.dashboard.pin_notice == "could not pin"


def _imports_across_modules(path: Path) -> list[str]:
    names = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom) and (node.module or "").startswith("bot."):
            names += [f"{node.module}.{alias.name}" for alias in node.names if alias.name.startswith("_")]
    return names


@pytest.mark.parametrize("path", sorted(PACKAGE.glob("*.py")), ids=lambda p: p.name)
def test_modules_import_only_public_names(path: Path) -> None:
    assert _imports_across_modules(path) == []


@pytest.mark.parametrize("part", PARTS)
def test_the_parts_neither_stub_nor_probe(part: str) -> None:
    source = (PACKAGE / f"{part}.py").read_text(encoding="utf-8")
    assert "NotImplementedError" not in source
    assert "getattr(" not in source

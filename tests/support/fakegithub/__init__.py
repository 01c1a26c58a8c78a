"""Stateful fake of GitHub's REST API for PyGithub-driven tests (see ``server`` docstring)."""

from .openapi_check import OpenAPIViolation
from .server import FAULT_KINDS, FakeGitHub, LoggedRequest
from .state import Comment, Commit, Issue, Label, PullInfo, Reaction, Status, Team, User

__all__ = [
    "FAULT_KINDS",
    "Comment",
    "Commit",
    "FakeGitHub",
    "Issue",
    "Label",
    "LoggedRequest",
    "OpenAPIViolation",
    "PullInfo",
    "Reaction",
    "Status",
    "Team",
    "User",
]

"""The filing world the core tests share: a commit's result files and inventory, pushed to an agent branch.

:func:`files` builds a commit as the adapter read it, :func:`push` files it as a push does, on a
:class:`GatedTracker` that records the commit gates and failures it was given.
"""

from __future__ import annotations

import json
from typing import Any

from parkbot.core import filing
from parkbot.core.config import Config, Owners
from parkbot.core.filing import BranchFiles, FiledFiles
from parkbot.core.models import Decision
from parkbot.core.tracker import DependentState, GateResult
from tests.support.memory_tracker import MemoryTracker
from tests.support.results import NOW, result

SHA = "0123456789abcdef0123456789abcdef01234567"
BRANCH = "agent/billing-42"
DID = "billing-42-decision-refund"
CONFIG = Config(owners=Owners(default="alice"))
INVENTORY = ".parkbot/inventory.json"
FILE = ".parkbot/decisions/refund.json"


class GatedTracker(MemoryTracker):
    """A tracker with commit gates (:class:`~parkbot.core.tracker.CommitGates`), and a record of each link made."""

    def __init__(self) -> None:
        super().__init__()
        self.commit_failures: dict[str, str] = {}
        self.commit_gates: dict[str, GateResult] = {}
        self.linked: list[str] = []

    def publish_commit_gate(self, sha: str, result: GateResult, *, blocked_fails: bool) -> None:
        self.commit_gates[sha] = result

    def publish_commit_failure(self, sha: str, summary: str) -> None:
        self.commit_failures[sha] = summary

    def block_dependents(self, decision: Decision) -> list[DependentState]:
        self.linked.append(decision.id)
        return super().block_dependents(decision)


def needs_input(**changes: Any) -> dict[str, Any]:
    """The shared question as the JSON object an agent writes into its result file."""
    data: dict[str, Any] = json.loads(result(**changes).model_dump_json(exclude_none=True))
    return data


def encode(value: Any) -> bytes | str:
    """A file's content as the adapter reads it: bytes and text as they are, anything else as its JSON."""
    return value if isinstance(value, bytes | str) else json.dumps(value).encode()


def as_bytes(value: Any) -> bytes:
    """:func:`encode`, as the bytes a result file is read as."""
    encoded = encode(value)
    return encoded.encode() if isinstance(encoded, str) else encoded


def files(
    results: dict[str, Any] | None = None,
    inventory: Any = None,
    *,
    errors: tuple[tuple[str, str], ...] = (),
    origin: str | None = "billing-42",
) -> BranchFiles:
    """A commit as the adapter read it (JSON values become bytes), parsed as a push parses it."""
    filed = FiledFiles(
        sha=SHA,
        results=tuple((path, as_bytes(value)) for path, value in (results or {}).items()),
        inventory=(INVENTORY, encode(inventory)) if inventory is not None else None,
        errors=errors,
    )
    return filing.parse_filed(filed, default_origin=origin)


def push(
    tracker: MemoryTracker,
    branch_files: BranchFiles,
    *,
    branch: str = BRANCH,
    config: Config = CONFIG,
) -> filing.FilingReport:
    """``branch_files`` pushed to ``branch``, filed as the push handler files them."""
    agent = config.is_agent_branch(branch)
    origin = filing.branch_origin(branch, config) if agent else None
    return filing.file_commit(tracker, config, branch_files, branch=branch, agent=agent, origin=origin, now=NOW)


def steps(report: filing.FilingReport) -> list[tuple[str, str, str | None, str | None]]:
    """Each step of ``report`` as (kind, message, path, decision id)."""
    return [(s.kind, s.message, s.path, s.decision_id) for s in report.steps]


def problems(report: filing.FilingReport) -> list[tuple[str, int, str, str | None]]:
    """Each problem of ``report`` as (message, exit code, reason, path)."""
    return [
        (s.problem.message, s.problem.exit_code, s.problem.reason, s.problem.path) for s in report.steps if s.problem
    ]

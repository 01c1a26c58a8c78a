"""The gate of a merge-queue commit: blocked while a decision linked to any queued pull request blocks.

Only the ``merge_group`` event asks for it, so it lives apart from :mod:`parkbot.core.lifecycle.gates`
(which every ``gate`` loads).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal

from parkbot.core.config import Config
from parkbot.core.lifecycle.gates import evaluate_gate, linked
from parkbot.core.models import Decision
from parkbot.core.tracker import GateResult, Tracker

#: The check a merge-queue commit gets: a blocked group fails rather than waits, because nobody answers
#: a question inside the queue's timeout, so the queue should drop the pull request at once.
QueueState = Literal["failure", "success"]


@dataclass(frozen=True)
class QueueGate:
    """The gate of a merge-queue commit (target ``merge_group:<sha>``), and the check state it gets."""

    result: GateResult
    state: QueueState


def queue_gate(tracker: Tracker, config: Config, head_sha: str, pulls: Sequence[int]) -> QueueGate:
    """A merge queue tests a temporary commit, not the pull request's head, so the queued pull requests'
    own checks do not count there: the commit is blocked while any decision linked to any of them blocks."""
    found: list[Decision] = []
    for number in pulls:
        found += linked(tracker, config, f"#{number}")
    result = evaluate_gate(f"merge_group:{head_sha}", found)
    return QueueGate(result, "failure" if result.blocking else "success")

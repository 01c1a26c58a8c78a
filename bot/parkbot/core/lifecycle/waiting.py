"""Waiting for an answer: the decision as it stands now, and one cheap poll of ``wait``."""

from __future__ import annotations

from typing import TYPE_CHECKING

from parkbot.core.config import Config
from parkbot.core.lifecycle.reading import checked_id, load_verified, require_found, verify
from parkbot.core.models import Decision

if TYPE_CHECKING:
    from parkbot.core.capabilities import PollToken
    from parkbot.core.tracker import Tracker


def answer_of(tracker: Tracker, config: Config, decision_id: str) -> Decision:
    """The decision as it stands now (for ``show``, ``wait`` polling and ``resume``)."""
    return load_verified(tracker, config, decision_id)


def poll_answer(
    tracker: Tracker, config: Config, decision_id: str, previous: PollToken | None = None
) -> tuple[Decision, PollToken | None]:
    """One poll of ``wait``: the decision now, and a token that makes the next poll cheap.

    Uses the tracker's optional ``poll`` capability when it has one (GitHub: a conditional request,
    free of rate limit while nothing changed); otherwise re-reads (:func:`answer_of`) and returns no
    token. Pass the returned token to the next call.
    """
    from parkbot.core.capabilities import Pollable  # ``wait`` only: ``show`` and ``resume`` read once

    if not isinstance(tracker, Pollable):
        return answer_of(tracker, config, decision_id), None
    did = checked_id(decision_id)
    decision, token = tracker.poll(did, previous if previous is not None and previous.decision_id == did else None)
    return verify(tracker, config, require_found(did, decision, tracker)), token

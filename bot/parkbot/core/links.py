"""Links that name a decision nobody can find or verify: they block, and say why.

A dependent names the decisions it waits for in many ways (a label, a ``Blocked-by:`` trailer, a
``Blocked by #N`` line, a native dependency, the edge parkbot recorded). Every one of those is an
index a writer can change; none of them is evidence that a decision was answered. So when a link
names a decision the backend cannot find, or finds only in a record parkbot did not write, the rule
is the same on every backend: the dependent waits, and the gate says why. The backend reports the
fact (the link and what it found); this module turns it into the stand-in decision the gate counts.
"""

from __future__ import annotations

from datetime import UTC, datetime

from parkbot.core.identity import SEPARATOR
from parkbot.core.models import Decision

#: The title of a stand-in: what the gate's summary shows for a link it cannot follow.
UNVERIFIED_TITLE = "unknown or unverifiable decision"
_EPOCH = datetime(1970, 1, 1, tzinfo=UTC)


def unverifiable_link(ref: str, why: str) -> Decision:
    """An open, blocking stand-in for a link to ``ref`` (a decision id or ``#N``) that cannot be followed.

    ``why`` is the fact the backend found ("not found", "record changed by mallory"); it is the
    stand-in's problem, so every surface that shows a decision's problems shows it.
    """
    origin, sep, key = ref.partition(SEPARATOR)
    reason = f"decision {ref}: {why}"
    stand_in = Decision(
        id=ref,
        origin=origin if sep else "unknown",
        key=key if sep else ref,
        title=UNVERIFIED_TITLE,
        question=(
            f"A dependent links {ref}, but {why}. It waits until the link is removed or the decision is "
            "filed again by parkbot."
        ),
        owner="(nobody)",
        state="open",
        blocking=True,
        created_at=_EPOCH,
        updated_at=_EPOCH,
    )
    return stand_in.with_problems([reason])


def is_stand_in(decision: Decision) -> bool:
    """Whether ``decision`` is a stand-in for a link that could not be followed (never a real record)."""
    return decision.title == UNVERIFIED_TITLE and decision.created_at == _EPOCH

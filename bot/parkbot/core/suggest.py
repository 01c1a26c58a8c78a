"""Near-miss suggestions ("did you mean ...?") for a mistyped name or id.

difflib is imported only when something was mistyped: every command's start-up stays without it
(tests/cli/test_startup.py pins that).
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING

from parkbot.core.errors import ParkbotError

if TYPE_CHECKING:
    from parkbot.core.tracker import Tracker

#: How many suggestions a message names, at most.
SHOWN = 3
#: How alike a decision id must be to be suggested: ids share ``-decision-``, which makes any two look alike
#: at difflib's usual 0.6 (``billing-42-decision-refnud`` and ``billing-46-decision-assumptions``: 0.70).
ID_CUTOFF = 0.8


def closest(typed: str, known: Iterable[str], *, n: int = SHOWN, cutoff: float = 0.6) -> list[str]:
    """The known names closest to ``typed`` (case-insensitively), best first; empty when none is near."""
    import difflib

    by_folded: dict[str, str] = {}
    for name in known:
        by_folded.setdefault(name.casefold(), name)
    found = difflib.get_close_matches(typed.casefold(), list(by_folded), n=n, cutoff=cutoff)
    return [by_folded[f] for f in found]


def did_you_mean(names: list[str]) -> str:
    """``did you mean 'a', 'b' or 'c'?`` (empty for no names)."""
    if not names:
        return ""
    quoted = [repr(name) for name in names]
    listed = quoted[0] if len(quoted) == 1 else f"{', '.join(quoted[:-1])} or {quoted[-1]}"
    return f"did you mean {listed}?"


def near_ids(typed: str, tracker: Tracker) -> list[str]:
    """The stored decision ids closest to ``typed``: read by name where the backend can, else by a scan.

    Only a hint: a backend that fails while listing gives no suggestion rather than a second failure.
    """
    from parkbot.core.tracker import DecisionIds  # the models import this module; the tracker imports them

    try:
        ids = tracker.decision_ids() if isinstance(tracker, DecisionIds) else (d.id for d in tracker.iter_decisions())
        return closest(typed, ids, cutoff=ID_CUTOFF)
    except ParkbotError:
        return []

"""``park``: an agent's result filed as a decision or a review item, or its inventory checked."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from parkbot.api.results.acts import Filed, Inventory
from parkbot.api.results.base import FILED_SHOWN, location_of, where
from parkbot.core import lifecycle
from parkbot.core.config import Config
from parkbot.core.errors import InvalidInput
from parkbot.core.models import Done, DoneWithAssumptions, Failed, NeedsInput, Result, parse_result
from parkbot.core.tracker import Tracker

__all__ = ["check_inventory", "park"]


def park(tracker: Tracker, config: Config, result: Result | Mapping[str, Any] | str | bytes) -> Filed | Inventory:
    """File an agent's result: ``needs_input`` becomes a decision, ``done_with_assumptions`` a review item,
    and a ``done``/``failed`` inventory is checked against the backlog."""
    parsed = parse_result(result)
    if isinstance(parsed, NeedsInput):
        filed = Filed.of(lifecycle.park(tracker, parsed, config, filed_by=filer(tracker, config)))
        return filed._told(
            f"{filed.action} {filed.id} (owner {filed.owner}) at {where(location_of(filed))}", FILED_SHOWN
        )
    if isinstance(parsed, DoneWithAssumptions):
        filed = Filed.of(lifecycle.park_review(tracker, parsed, config))
        return filed._told(
            f"{filed.action} review item {filed.id} ({len(parsed.assumptions)} assumption(s), owner "
            f"{filed.owner}, non-blocking) at {where(location_of(filed))}",
            FILED_SHOWN,
        )
    return check_inventory(tracker, parsed)


def filer(tracker: Tracker, config: Config) -> str | None:
    """Who files, where the backend can tell (so that the planner never answers a question it filed)."""
    if config.planner is None:
        return None
    try:
        return tracker.actor(None).login
    except InvalidInput:
        return None


def check_inventory(tracker: Tracker, result: Done | Failed) -> Inventory:
    """A finished run's inventory must match the backlog (:func:`parkbot.core.filing.check_inventory`'s rule)."""
    from parkbot.core import filing

    filing.check_inventory(tracker, result)
    if result.none:
        return Inventory(origin=result.origin, status=result.status, none=True, decisions=[])._told(
            f"{result.origin}: {result.status}, no decisions surfaced (stated explicitly)",
            {"origin": None, "status": None, "none": None},
        )
    ids = result.decision_ids()
    return Inventory(origin=result.origin, status=result.status, none=False, decisions=ids)._told(
        f"{result.origin}: {result.status}, {len(ids)} decision(s) surfaced, all in the backlog",
        {"origin": None, "status": None},
    )

"""The Python API: a backlog to park questions in, read answers from, and gate work on.

::

    from parkbot import Backlog

    backlog = Backlog.open(repo=".", backend="git")      # or "github" (GITHUB_TOKEN, GITHUB_REPOSITORY)
    filed = backlog.park({"status": "needs_input", "origin": "billing-42", "key": "refund", ...})
    backlog.gate(ref="agent/billing-42").state            # "blocked"
    context = backlog.wait(filed.id, timeout="10m")       # the answer, or state "open" when the window passed

Every method takes plain data (a dict, text) or the models, and returns a typed result whose
``model_dump(mode="json")`` is exactly what the matching command prints with ``--json``: the CLI and
the MCP server are thin layers over this module, so the three cannot disagree. A result that is not
a success for a shell script (a closed gate, a question still open) says so in ``exit_code`` (1);
every failure raises one of the :class:`~parkbot.core.errors.ParkbotError` family, with the ``exit_code``
and message the command would exit with.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from parkbot.core.lazy import exports

#: Where each name lives, loaded on first use: a command loads only the module of the verbs it runs
#: (``gate`` the reading, ``list`` the listing), not the filing, acting, planning and waiting code.
_EXPORTS = {
    "Backlog": "parkbot.api.backlog",
    "check_inventory": "parkbot.api.filing",
    "PrintedList": "parkbot.api.listing",
    **dict.fromkeys(
        (
            "Cited",
            "Corrected",
            "DecisionItem",
            "DecisionList",
            "DecisionView",
            "Filed",
            "GateReport",
            "Inventory",
            "Requested",
            "Resolved",
            "ResumeContext",
            "Synced",
        ),
        "parkbot.api.results",
    ),
    **dict.fromkeys(("DEFAULT_POLL", "POLL_SCHEDULE", "poller", "wait_for_answer"), "parkbot.api.waiting"),
    **dict.fromkeys(("Awaiting", "ListState"), "parkbot.core.listing"),
}

if TYPE_CHECKING:
    from parkbot.api.backlog import Backlog
    from parkbot.api.filing import check_inventory
    from parkbot.api.listing import PrintedList
    from parkbot.api.results import (
        Cited,
        Corrected,
        DecisionItem,
        DecisionList,
        DecisionView,
        Filed,
        GateReport,
        Inventory,
        Requested,
        Resolved,
        ResumeContext,
        Synced,
    )
    from parkbot.api.waiting import DEFAULT_POLL, POLL_SCHEDULE, poller, wait_for_answer
    from parkbot.core.listing import Awaiting, ListState

__all__ = [
    "DEFAULT_POLL",
    "POLL_SCHEDULE",
    "Awaiting",
    "Backlog",
    "Cited",
    "Corrected",
    "DecisionItem",
    "DecisionList",
    "DecisionView",
    "Filed",
    "GateReport",
    "Inventory",
    "ListState",
    "PrintedList",
    "Requested",
    "Resolved",
    "ResumeContext",
    "Synced",
    "check_inventory",
    "poller",
    "wait_for_answer",
]


__getattr__, __dir__ = exports(__name__, _EXPORTS)

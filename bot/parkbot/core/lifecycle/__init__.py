"""The decision lifecycle: every rule of the contract, written once against :class:`Tracker`, one module per act.

No I/O of its own: each function takes a tracker, the config and the clock, so both backends obey
exactly the same rules and the rules are tested without either.

| situation                          | result                                                      |
| ---------------------------------- | ----------------------------------------------------------- |
| new id                             | parked: created, assigned to the owner, dependents blocked  |
| same id, same title                | updated in place (``updated``/``unchanged``), never twice    |
| same id, different title           | refused (identity collision), nothing written               |
| same id, already resolved          | refused: a resolved decision stays resolved                 |
| same id, ``blocking`` lowered       | refused (``blocking_lowered``): blocking only goes up        |
| owner answers                      | record -> point dependents -> clear blocking -> close       |
| a step fails midway                | stays open; the same answer again completes the rest        |
| a different answer after one       | refused, quoting the recorded answer                        |
| someone who is not an owner        | refused, nothing changed                                    |

Modules: :mod:`.parking` (park), :mod:`.resolving` (resolve, and an owner's act as a comment command),
:mod:`.escalation` (escalate, return), :mod:`.review` (review items), :mod:`.by_hand` (finishing, and items
closed or reopened by hand), :mod:`.waiting` (wait, poll), :mod:`.gates` (the gate), :mod:`.queue` (the gate of a
merge-queue commit), :mod:`.reading` (read and verify), :mod:`.outcomes` (what they return), :mod:`.possible`
(what an owner can do).
Every name is importable from here, as it always was, and each is loaded on first use: a command that
only reads (``gate``, ``show``, ``resume``, ``list``) loads :mod:`.reading`, :mod:`.gates` and :mod:`.waiting`,
never the acts that write.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from parkbot.core import authority, suggest
    from parkbot.core.authority import Actor
    from parkbot.core.config import Config
    from parkbot.core.errors import ConcurrentChange, ContentChanged, InvalidInput, NotFound, Refused
    from parkbot.core.identity import check_decision_id
    from parkbot.core.identity import decision_id as derive_id
    from parkbot.core.lifecycle.by_hand import (
        ABANDONED,
        CLOSED_AGAIN,
        REOPENED,
        RESTORED,
        REVIVED,
        HandAction,
        HandOutcome,
        closed_by_hand,
        finish_resolution,
        index_changed_by_hand,
        reopened_by_hand,
    )
    from parkbot.core.lifecycle.escalation import escalate, escalation_command, return_to_requester
    from parkbot.core.lifecycle.gates import evaluate_gate, gate, linked, per_commit
    from parkbot.core.lifecycle.outcomes import (
        COMMAND_FOR_KIND,
        PARK_ATTEMPTS,
        Command,
        ParkAction,
        ParkOutcome,
        log_entry,
    )
    from parkbot.core.lifecycle.parking import blocking_lowered, build_decision, merge_refiling, park
    from parkbot.core.lifecycle.possible import Act, PossibleAct, possible_acts
    from parkbot.core.lifecycle.queue import QueueGate, QueueState, queue_gate
    from parkbot.core.lifecycle.reading import decisions, recorded_answer, verify
    from parkbot.core.lifecycle.resolving import (
        OPTIONS_CHANGED,
        ResolveAction,
        ResolveOutcome,
        act_command,
        answer_command,
        complete,
        interpret_answer,
        resolve,
    )
    from parkbot.core.lifecycle.review import REVIEW_KEY, accept_review, override_assumption, park_review
    from parkbot.core.lifecycle.waiting import answer_of, poll_answer
    from parkbot.core.models import (
        Answer,
        AnswerKind,
        Decision,
        DecisionState,
        DoneWithAssumptions,
        Escalation,
        LogEntry,
        NeedsInput,
        Override,
        utcnow,
    )
    from parkbot.core.tracker import (
        BacklogHints,
        ConflictingAnswers,
        DependentState,
        GateResult,
        Location,
        Pollable,
        PollToken,
        SharedCommits,
        Tracker,
    )

#: The modules the names come from: each name is loaded from its module on first use.
_NAMES_IN = {
    "parkbot.core.authority": "Actor",
    "parkbot.core.config": "Config",
    "parkbot.core.errors": "ConcurrentChange ContentChanged InvalidInput NotFound Refused",
    "parkbot.core.identity": "check_decision_id",
    "parkbot.core.lifecycle.by_hand": (
        "ABANDONED CLOSED_AGAIN REOPENED RESTORED REVIVED HandAction HandOutcome closed_by_hand finish_resolution "
        "index_changed_by_hand reopened_by_hand"
    ),
    "parkbot.core.lifecycle.escalation": "escalate escalation_command return_to_requester",
    "parkbot.core.lifecycle.gates": "evaluate_gate gate linked per_commit",
    "parkbot.core.lifecycle.outcomes": ("COMMAND_FOR_KIND PARK_ATTEMPTS Command ParkAction ParkOutcome log_entry"),
    "parkbot.core.lifecycle.parking": "blocking_lowered build_decision merge_refiling park",
    "parkbot.core.lifecycle.possible": "Act PossibleAct possible_acts",
    "parkbot.core.lifecycle.queue": "QueueGate QueueState queue_gate",
    "parkbot.core.lifecycle.reading": "decisions recorded_answer verify",
    "parkbot.core.lifecycle.resolving": (
        "OPTIONS_CHANGED ResolveAction ResolveOutcome act_command answer_command complete interpret_answer resolve"
    ),
    "parkbot.core.lifecycle.review": "REVIEW_KEY accept_review override_assumption park_review",
    "parkbot.core.lifecycle.waiting": "answer_of poll_answer",
    "parkbot.core.models": (
        "Answer AnswerKind Decision DecisionState DoneWithAssumptions Escalation LogEntry NeedsInput Override utcnow"
    ),
    "parkbot.core.tracker": (
        "BacklogHints ConflictingAnswers DependentState GateResult Location Pollable PollToken SharedCommits Tracker"
    ),
}
_MODULES = {"authority": "parkbot.core.authority", "suggest": "parkbot.core.suggest"}
_WHERE = {name: module for module, names in _NAMES_IN.items() for name in names.split()}

__all__ = [
    "ABANDONED",
    "CLOSED_AGAIN",
    "COMMAND_FOR_KIND",
    "OPTIONS_CHANGED",
    "PARK_ATTEMPTS",
    "REOPENED",
    "RESTORED",
    "REVIEW_KEY",
    "REVIVED",
    "Act",
    "Actor",
    "Answer",
    "AnswerKind",
    "BacklogHints",
    "Command",
    "ConcurrentChange",
    "Config",
    "ConflictingAnswers",
    "ContentChanged",
    "Decision",
    "DecisionState",
    "DependentState",
    "DoneWithAssumptions",
    "Escalation",
    "GateResult",
    "HandAction",
    "HandOutcome",
    "InvalidInput",
    "Location",
    "LogEntry",
    "NeedsInput",
    "NotFound",
    "Override",
    "ParkAction",
    "ParkOutcome",
    "PollToken",
    "Pollable",
    "PossibleAct",
    "QueueGate",
    "QueueState",
    "Refused",
    "ResolveAction",
    "ResolveOutcome",
    "SharedCommits",
    "Tracker",
    "accept_review",
    "act_command",
    "answer_command",
    "answer_of",
    "authority",
    "blocking_lowered",
    "build_decision",
    "check_decision_id",
    "closed_by_hand",
    "complete",
    "decisions",
    "derive_id",
    "escalate",
    "escalation_command",
    "evaluate_gate",
    "finish_resolution",
    "gate",
    "index_changed_by_hand",
    "interpret_answer",
    "linked",
    "log_entry",
    "merge_refiling",
    "override_assumption",
    "park",
    "park_review",
    "per_commit",
    "poll_answer",
    "possible_acts",
    "queue_gate",
    "recorded_answer",
    "reopened_by_hand",
    "resolve",
    "return_to_requester",
    "suggest",
    "utcnow",
    "verify",
]


def __getattr__(name: str) -> Any:
    value: Any
    if name in _MODULES:  # the core modules themselves, as the single module imported them
        value = importlib.import_module(_MODULES[name])
    elif name == "derive_id":
        value = importlib.import_module("parkbot.core.identity").decision_id
    elif name in _WHERE:
        value = getattr(importlib.import_module(_WHERE[name]), name)
    else:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted({*globals(), *_WHERE, *_MODULES, "derive_id"})

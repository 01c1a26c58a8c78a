"""Errors that carry the exit code users' workflows rely on (a contract, see docs/cli.md).

Every failure parkbot reports is one of these, so the CLI maps them to exit codes in one place and
never shows a stack trace for a condition it understands.
"""

from __future__ import annotations

from collections.abc import Sequence
from enum import IntEnum
from typing import Literal

#: Every reason code a failure carries (``ParkbotError.reason``, a filing ``Problem``'s ``reason``): the
#: ``error`` of ``--json`` output and of MCP tool errors, an event item's ``action``. One list, so a typo is a
#: type error; the codes are a contract (docs/cli.md), never renamed. ``tests/core/test_errors.py`` checks that
#: every code raised anywhere is here.
Reason = Literal[
    # what each error class is, when no rule names it more precisely
    "error",
    "invalid",
    "not_found",
    "refused",
    "backend_failure",
    "concurrent_change",
    "options_changed",
    # who may act
    "not_authorized",
    "unverifiable",
    # parking a question (``parkbot.core.lifecycle.parking``) and the question budgets
    "collision",
    "answer_pending",
    "blocking_lowered",
    "cap_reached",
    # a decision in a state the rule does not act on (its ``state``), or answered otherwise
    "open",
    "resolved",
    "abandoned",
    "conflicting_answer",
    # escalation and return (``parkbot.core.lifecycle.escalation``)
    "no_hierarchy",
    "top_of_hierarchy",
    "not_upward",
    "not_interactive",
    "requester_not_allowed",
    # the planner (``parkbot.core.planner``) and the sources it cites (``parkbot.core.planner_sources``)
    "no_planner",
    "not_planner",
    "own_question",
    "never",
    "strict_blocking",
    "not_with_planner",
    "no_source",
    "not_answered",
    "source_out_of_scope",
    "source_missing",
    "source_invalid",
    "source_unanswered",
    "source_not_a_person",
    # filing from a branch (``parkbot.core.filing``): what a pushed commit's files lack
    "no_inventory",
    "origin_mismatch",
    "missing",
    "unreadable",
]

#: What the person can do next, as a code each surface words in its own commands (``ParkbotError.step``):
#: ``parkbot.cli.messages`` words every one, ``parkbot.events.replies`` those a comment command can meet,
#: ``parkbot.mcp_server`` those its tools can meet.
Step = Literal[
    "check_id",
    "add_hierarchy_or_answer",
    "answer_or_default",
    "answer",
    "accept_or_override",
    "answer_again",
    "gate_target",
    "pr_on_github",
    "other_backend",
    "name_actor",
]


class ExitCode(IntEnum):
    """The exit codes of every ``parkbot`` command."""

    OK = 0
    BLOCKED = 1  # gate closed, or ``wait`` ended without an answer
    INVALID = 2  # invalid input or usage
    REFUSED = 3  # refused by a lifecycle rule
    BACKEND = 4  # backend failure after retries; safe to run again


class ParkbotError(Exception):
    """Base class: a message meant for a person, and the exit code for a machine.

    The message is plain text, in no surface's syntax: each surface (the command line, a reply on
    GitHub, an MCP tool error) adds the next step in its own commands, chosen by ``step`` and the
    ``decision`` it is about (see ``parkbot.cli.messages``, ``parkbot.events.replies`` and
    ``parkbot.mcp_server``).
    """

    exit_code: ExitCode = ExitCode.INVALID
    #: A short machine-readable reason, shown in ``--json`` output (one of :data:`Reason`).
    reason: Reason = "error"

    def __init__(
        self,
        message: str,
        *,
        reason: Reason | None = None,
        step: Step | None = None,
        decision: str | None = None,
        suggestions: Sequence[str] = (),
    ) -> None:
        super().__init__(message)
        self.message = message
        if reason is not None:
            self.reason = reason
        #: What the person can do next, as a code each surface words in its own commands (None: nothing to add).
        self.step = step
        #: The decision the failure is about, for a surface's next step.
        self.decision = decision
        #: The closest existing decision ids, for a mistyped one (already named in the message).
        self.suggestions = tuple(suggestions)


class InvalidInput(ParkbotError):
    """The input cannot be used as given: the message says what to fix."""

    exit_code = ExitCode.INVALID
    reason: Reason = "invalid"


class NotFound(InvalidInput):
    """The named decision does not exist in this backlog."""

    reason: Reason = "not_found"


class Refused(ParkbotError):
    """A lifecycle rule refuses the request; nothing was written."""

    exit_code = ExitCode.REFUSED
    reason: Reason = "refused"


class BackendFailure(ParkbotError):
    """The backend kept failing after bounded retries; every operation is safe to run again."""

    exit_code = ExitCode.BACKEND
    reason: Reason = "backend_failure"


class ConcurrentChange(BackendFailure):
    """Another writer changed the item between our read and our write; the lifecycle re-reads and retries.

    Only escapes to the user (exit 4, safe to re-run) when contention outlasts the bounded retries.
    """

    reason: Reason = "concurrent_change"


class ContentChanged(ConcurrentChange):
    """The question or options changed between reading the decision and recording an answer to it: the
    answer is refused (never applied to text the owner did not read), not retried."""

    reason: Reason = "options_changed"


def with_step(message: str, step: str | None) -> str:
    """``message`` followed by the next step a surface words in its own commands (nothing without one)."""
    if not step:
        return message
    if message.endswith((".", "?", "!")):
        return f"{message} {step[:1].upper()}{step[1:]}."
    return f"{message}; {step}"

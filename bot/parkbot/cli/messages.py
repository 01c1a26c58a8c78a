"""What a failure says on the command line: the core's plain message, and the next step as a ``parkbot`` command.

The core words its refusals without any surface's syntax and gives each a reason code, a next step's
code and the decision it is about (:class:`~parkbot.core.errors.ParkbotError`); this is where the command
line adds its own commands, as a GitHub reply adds ``/decide ...`` (``parkbot.events.replies``) and an
MCP error names the tool's arguments (``parkbot.mcp_server``).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from parkbot.core.errors import ParkbotError, Step, with_step

if TYPE_CHECKING:
    from parkbot.api.failure import ErrorObject

ANSWER = "parkbot resolve {id} --answer OPTION"


def next_step(exc: ParkbotError) -> str | None:
    """The ``parkbot`` command to run next for this failure (by its ``step``: every one has its command here), or
    None when the message says all."""
    if not exc.step:
        return None
    did = exc.decision or "ID"
    answer = ANSWER.format(id=did)
    steps: dict[Step, str] = {
        "check_id": "check the id with `parkbot list`",
        "add_hierarchy_or_answer": f"answer with `{answer}`, or with an explicit default: `{answer} --default` "
        "(a hierarchy is set in .github/parkbot.yml)",
        "answer_or_default": f"answer with `{answer}`, or with an explicit default: `{answer} --default`",
        "answer": f"answer it with `{answer}`",
        "accept_or_override": f"`parkbot accept {did}` accepts them, `parkbot override {did} NUMBER TEXT` "
        "overrides one",
        "answer_again": f"finish it with `{answer}`",
        "gate_target": "give a pull request number (PR), or --ref BRANCH",
        "pr_on_github": "add --backend github, or gate a branch with --ref BRANCH",
        "other_backend": "or work on GitHub issues with --backend github",
        "name_actor": "name them with --by LOGIN (or PARKBOT_ACTOR)",
    }
    return steps.get(exc.step)


def cli_message(exc: ParkbotError) -> str:
    """The message the command line prints for ``exc`` (on stderr, and in the ``--json`` error object)."""
    return with_step(exc.message, next_step(exc))


def error_object(exc: ParkbotError) -> ErrorObject:
    """The error object (:mod:`parkbot.api.failure`) of ``exc`` on the command line, with its message."""
    from parkbot.api.failure import failure_of

    return failure_of(exc, cli_message(exc))

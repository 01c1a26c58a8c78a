"""What a refusal says on GitHub: the core's plain message, and the next step as a comment command.

The core words its refusals without any surface's syntax (:class:`~parkbot.core.errors.ParkbotError`:
a message, a reason code, a next step's code, the decision); replies on decision issues and notices in the run add the
comment commands (``/decide ...``), as the command line adds ``parkbot resolve ...``.
"""

from __future__ import annotations

from parkbot.core.commands import COMMAND_NAMES, Command, CommandName, CommandProblem
from parkbot.core.config import Config
from parkbot.core.errors import ParkbotError, Step, with_step
from parkbot.core.lifecycle.possible import PossibleAct, possible_acts
from parkbot.core.models import Decision

DECIDE = "`/decide <option>`"
DEFAULT = "`/default <option>`"

#: The next step of each refusal (by its ``step``), as comment commands on the decision issue: every step a
#: comment command can meet (``check_id`` it cannot: a command names its decision by the issue it is on).
STEPS: dict[Step, str] = {
    "add_hierarchy_or_answer": f"answer with {DECIDE}, or with an explicit default: {DEFAULT} (a hierarchy is set "
    "in `.github/parkbot.yml`)",
    "answer_or_default": f"answer with {DECIDE}, or with an explicit default: {DEFAULT}",
    "answer": f"answer it with {DECIDE}",
    "accept_or_override": "`/accept` accepts them, `/override <n> <what it should be>` overrides one",
    "answer_again": f"an owner finishes it by answering again on the issue: {DECIDE}",
}

#: Said after parkbot reopens a decision closed without an answer: how to answer it on the issue.
REOPENED_STEP = f"answer with {DECIDE}, or with an explicit default: {DEFAULT}"


def github_step(exc: ParkbotError) -> str | None:
    """The next step for ``exc`` as comment commands (Markdown), or None when the message says all."""
    return STEPS.get(exc.step) if exc.step else None


def github_message(exc: ParkbotError) -> str:
    """The message a notice of the run gives for ``exc``."""
    return with_step(exc.message, github_step(exc))


def help_row(act: PossibleAct) -> tuple[str, str]:
    """One act as the comment to type on the issue, and what it does."""
    if act.act == "decide":
        return f"/decide {act.arg}", act.about or ""
    if act.act == "answer":
        return "/answer <your answer>", "answer in words"
    if act.act == "default":
        return f"/default {act.arg}", "the same, recorded as an explicit assumption"
    if act.act == "escalate":
        return "/escalate", "pass the question one level up the hierarchy"
    if act.act == "return":
        return "/return", f"hand it back to {act.about} (stated by the agent), who started the run"
    if act.act == "accept":
        return "/accept", "accept every stated assumption"
    return f"/override {act.arg} <what it should be>", act.about or ""


def help_rows(decision: Decision, config: Config) -> list[tuple[str, str]]:
    """What the owner can type on this decision (``/help``): (comment, what it does), in the order to try them."""
    return [help_row(act) for act in possible_acts(decision, config)]


#: What each comment command needs, said when it comes without it (``missing_argument``).
NEEDS: dict[CommandName, str] = {
    "decide": "/decide needs an option id, e.g. `/decide <option-id>`",
    "default": "/default needs an option id, e.g. `/default <option-id>`",
    "answer": "/answer needs the answer text, e.g. `/answer ship it on Monday`",
    "cite": "/cite needs an option and its sources: `/cite <option> <source>...`",
    "correct": "/correct needs the option and why: `/correct <option> <why>`",
    "override": "/override needs an assumption number and text (`/override <n> <text>`), or an option "
    "(`/override <option> [why]`)",
}


def command_problem(command: Command) -> str:
    """Why a comment's command is not taken, as a reply on the issue: a near miss names the command it most
    likely meant and every command there is; a malformed one says what it needs."""
    if command.name == "unknown":
        listed = ", ".join(f"/{name}" for name in COMMAND_NAMES)
        meant = f" did you mean /{command.meant}?" if command.meant else ""
        return f"{command.render()} is not a parkbot command;{meant} The commands are {listed}."
    return malformed(command.name, command.error) if command.error else ""


def malformed(name: CommandName, problem: CommandProblem) -> str:
    """The core's reason a command's argument is malformed, in the comment commands of the issue."""
    if problem.reason == "missing_text":
        return f"/{name} needs the replacement text"
    if problem.reason == "missing_argument":
        return NEEDS.get(name, f"/{name} needs an argument")
    if name in ("decide", "default"):
        return f"/{name} takes exactly one option id, got {problem.typed!r}"
    if name == "escalate":
        return "/escalate takes at most one name: `/escalate` or `/escalate <to>`"
    return f"/{name} takes no argument"

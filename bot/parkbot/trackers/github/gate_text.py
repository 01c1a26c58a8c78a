"""The gate's words on GitHub: the commit status and check run parkbot sets on dependents, and their text."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from parkbot.core.links import is_stand_in
from parkbot.core.models import Decision
from parkbot.core.tracker import GateResult
from parkbot.markdown import code_span, escape_markdown, one_line, truncate
from parkbot.trackers.github.text import STATUS_DESCRIPTION_LIMIT

# --- the gate --------------------------------------------------------------------------------

#: The name of the gate: the check run's name, and the commit status's context.
STATUS_CONTEXT = "parkbot/decisions"
CHECK_NAME = STATUS_CONTEXT


def gate_state(result: GateResult) -> str:
    return "pending" if result.blocking else "success"


def gate_description(result: GateResult, limit: int = STATUS_DESCRIPTION_LIMIT) -> str:
    """A commit status description (GitHub allows 140 characters)."""
    if result.blocking:
        ids = ", ".join(d.id for d in result.blocking)
        n = len(result.blocking)
        text = f"Waiting for {n} open decision{'s' if n != 1 else ''}: {ids}"
    elif result.resolved:
        n = len(result.resolved)
        text = f"All {n} linked decision{'s' if n != 1 else ''} answered"
    else:
        text = "No open decisions"
    return one_line(text, limit)


def linked_summary(decisions: Sequence[Decision]) -> str:
    return ", ".join(d.id for d in decisions)


#: GitHub's limit on a check run's summary.
CHECK_SUMMARY_LIMIT = 65_535
CHECK_TITLE_LIMIT = 255


@dataclass(frozen=True)
class CheckOutput:
    """What a check run of the gate says: its status and conclusion, title and Markdown summary."""

    status: str  # in_progress | completed
    conclusion: str | None  # success | failure (None while in progress)
    title: str
    summary: str

    def as_json(self) -> dict[str, Any]:
        body: dict[str, Any] = {"status": self.status, "output": {"title": self.title, "summary": self.summary}}
        if self.conclusion is not None:
            body["conclusion"] = self.conclusion
        return body


def _decision_line(decision: Decision, url: str | None) -> str:
    ident = f"[{code_span(decision.id)}]({url})" if url else code_span(decision.id)
    line = f"- {ident}: {escape_markdown(one_line(decision.title, 200))}"
    if decision.state == "abandoned":
        line += " (closed without an answer: it keeps blocking)"
    if is_stand_in(decision):  # a link nothing answers for: say why it blocks
        return line + "".join(f"\n  - {escape_markdown(one_line(p, 500))}" for p in decision.problems)
    for problem in decision.problems:
        line += f"\n  - parkbot ignored a change it did not make: {escape_markdown(one_line(problem, 500))}"
    return line


def check_output(result: GateResult, urls: Mapping[str, str | None], *, blocked_fails: bool = False) -> CheckOutput:
    """The check run ``parkbot/decisions`` for a gate result: waiting (in progress) while any linked
    decision is open, a failure instead when nobody can answer in time (``blocked_fails``: a merge
    queue), a success once none blocks. The summary lists the decisions, each linked to its issue."""
    if result.blocking:
        n = len(result.blocking)
        noun = f"{n} open decision{'s' if n != 1 else ''}"
        shared = list(result.same_commit)
        lines = [
            f"This change waits for the answer to {noun}:",
            "",
            *(_decision_line(d, urls.get(d.id)) for d in result.blocking),
            "",
            *(
                [
                    f"This commit is also the head of {', '.join(escape_markdown(t) for t in shared)}, which "
                    "waits: the check is per commit, so it stays blocked while any pull request at it waits.",
                    "",
                ]
                if shared
                else []
            ),
            "An owner answers on each decision's issue (the commands are listed there); this check turns "
            "green by itself when the last one is answered.",
        ]
        status, conclusion = ("completed", "failure") if blocked_fails else ("in_progress", None)
        title = f"Blocked by {noun}" if blocked_fails else f"Waiting for {noun}"
    else:
        lines = ["No open decision blocks this change."]
        if result.resolved:
            lines += ["", "Answered:", "", *(_decision_line(d, urls.get(d.id)) for d in result.resolved)]
        status, conclusion, title = "completed", "success", gate_description(result, CHECK_TITLE_LIMIT)
    summary = truncate("\n".join(lines) + "\n", CHECK_SUMMARY_LIMIT, "\n…\n")
    return CheckOutput(status, conclusion, one_line(title, CHECK_TITLE_LIMIT), summary)


def check_failure(summary: str) -> CheckOutput:
    """A failed gate on an exact commit, saying why (the text is escaped here)."""
    return CheckOutput(
        "completed",
        "failure",
        one_line(summary, CHECK_TITLE_LIMIT),
        truncate(escape_markdown(summary) + "\n", CHECK_SUMMARY_LIMIT, "\n…\n"),
    )

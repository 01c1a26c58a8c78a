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

import builtins
import fnmatch
import functools
import json
import os
import time
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any, Literal, Self

import pydantic_core
from pydantic import BaseModel, ConfigDict, Field, PrivateAttr

from parkbot.backends import Backend, open_backend
from parkbot.core import authority, lifecycle
from parkbot.core import planner as planner_rules
from parkbot.core.authority import Actor
from parkbot.core.config import Config
from parkbot.core.durations import Duration, moment
from parkbot.core.errors import ExitCode, InvalidInput
from parkbot.core.lifecycle import Command, ParkOutcome, ResolveOutcome
from parkbot.core.models import (
    Answer,
    Citation,
    Decision,
    DecisionKind,
    DecisionState,
    Done,
    DoneWithAssumptions,
    Failed,
    NeedsInput,
    Option,
    Override,
    Result,
    parse_result,
    result_json_schema,
    utcnow,
)
from parkbot.core.tracker import BacklogHints, GateResult, Location, OwnIdentityRecords, PollToken, Syncing, Tracker
from parkbot.details import Shown, detail_lines

__all__ = [
    "Backlog",
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
    "wait_for_answer",
]

#: How often ``wait`` polls, per backend: (first interval, longest interval) in seconds. The git
#: backlog is read locally, so it is polled often (an answer is seen within a second); GitHub polls
#: back off to one a minute, and each poll after the first is a conditional request.
POLL_SCHEDULE: dict[str, tuple[float, float]] = {"git": (0.2, 0.5), "github": (2.0, 60.0)}
DEFAULT_POLL = (2.0, 60.0)
#: What ``list`` accepts as a state.
ListState = Literal["open", "resolved", "abandoned", "all"]
#: What ``list --awaiting`` accepts: questions with the planner, or planner answers waiting for review.
Awaiting = Literal["planner", "review"]


# --- results: what every command prints with --json ------------------------------------------


class _Result(BaseModel):
    """A command's outcome: ``model_dump(mode="json")`` is its ``--json``, ``text()`` its output for people."""

    model_config = ConfigDict(frozen=True, extra="forbid", defer_build=True)
    _text: str = PrivateAttr(default="")

    @property
    def exit_code(self) -> ExitCode:
        return ExitCode.OK

    def text(self) -> str:
        return self._text

    def _told(self, text: str, shown: Shown | None = None, *, indent: str = "  ", last: str | None = None) -> Self:
        """The text: ``text`` for people, then every other field of the ``--json`` object (:mod:`parkbot.details`;
        ``shown`` names the fields ``text`` already shows), then ``last``."""
        details = detail_lines(self.model_dump(mode="json", by_alias=True), shown, indent)
        self._text = "\n".join([text, *details, *([last] if last is not None else [])])
        return self


class _Located(_Result):
    """Where a decision lives: ``number``/``url`` on GitHub, ``ref``/``path`` in git."""

    backend: str
    ref: str | None = None
    path: str | None = None
    number: int | None = None
    url: str | None = None


def _location(location: Location) -> dict[str, Any]:
    return {
        "backend": location.backend,
        "ref": location.ref,
        "path": location.path,
        "number": location.number,
        "url": location.url,
    }


def _where(location: Location) -> str:
    if location.url:
        return f"#{location.number} {location.url}"
    return f"{location.ref or ''}:{location.path or ''}"


class GateReport(_Result):
    """Whether a dependent may proceed (``open``) or waits for decisions (``blocked``, exit 1)."""

    target: str
    state: Literal["open", "blocked"]
    blocking: list[str] = Field(description="Ids of the open decisions it waits for.")
    resolved: list[str] = Field(description="Ids of the linked decisions already answered.")
    note: str | None = None

    @property
    def exit_code(self) -> ExitCode:
        return ExitCode.BLOCKED if self.state == "blocked" else ExitCode.OK

    @classmethod
    def of(cls, result: GateResult) -> GateReport:
        report = cls(
            target=result.target,
            state=result.state,
            blocking=[d.id for d in result.blocking],
            resolved=[d.id for d in result.resolved],
            note=result.details.get("note"),
        )
        shown = {"target": None, "state": None, "blocking": None}
        if not result.blocking:
            return report._told(f"{result.target}: open (no open decision blocks it)", shown)
        lines = [f"{result.target}: blocked by {len(result.blocking)} open decision(s)"]
        lines += [f"  {d.id}  {d.title}  (owner {d.owner})" for d in result.blocking]
        return report._told("\n".join(lines), shown)


#: What the first line of a filed or answered item shows (its location is shown there too, for a filing).
_LOCATION: Shown = {"ref": None, "path": None, "number": None, "url": None}
_FILED: Shown = {"id": None, "action": None, "owner": None, **_LOCATION}


class Filed(_Located):
    """A decision or review item as filed or moved: ``park``, ``escalate``, ``return``, ``override``."""

    id: str
    kind: DecisionKind
    action: Literal["created", "updated", "unchanged"]
    state: DecisionState
    owner: str
    chain: list[str] = Field(description="Owners the question travelled through, first to current.")
    gates: list[GateReport] = Field(default_factory=list)
    precedent: Citation | None = None
    answer: Answer | None = None

    @classmethod
    def of(cls, outcome: ParkOutcome) -> Filed:
        decision = outcome.decision
        return cls(
            id=decision.id,
            kind=decision.kind,
            action=outcome.action,
            state=decision.state,
            owner=decision.owner,
            chain=decision.chain(),
            **_location(outcome.location),
            gates=[GateReport.of(g) for g in outcome.gates],
            precedent=decision.precedent,
            answer=decision.answer,
        )


class Resolved(_Located):
    """An answered decision or accepted review item: ``resolve``, ``accept``."""

    id: str
    action: Literal["resolved", "completed", "unchanged", "confirmed"]
    state: Literal["resolved"] = "resolved"
    answer: Answer
    assumption: bool = Field(description="The answer is an explicit default: treat it as an assumption.")
    gates: list[GateReport] = Field(default_factory=list)

    @classmethod
    def of(cls, outcome: ResolveOutcome) -> Resolved:
        return cls(
            id=outcome.decision.id,
            action=outcome.action,
            answer=outcome.answer,
            assumption=outcome.answer.assumption,
            **_location(outcome.location),
            gates=[GateReport.of(g) for g in outcome.gates],
        )


class Cited(_Located):
    """A planner's answer from checked sources (``cite``): recorded, and a review item for the owner."""

    id: str
    action: Literal["resolved", "completed", "unchanged", "recorded", "confirmed"]
    state: DecisionState
    answer: Answer
    answered_by: Literal["planner"] = "planner"
    review: str | None = Field(default=None, description="pending until the owner accepts or overrides it.")
    gates: list[GateReport] = Field(default_factory=list)

    @classmethod
    def of(cls, outcome: ResolveOutcome) -> Cited:
        decision = outcome.decision
        action = "recorded" if decision.state == "open" and outcome.action == "unchanged" else outcome.action
        cited = cls(
            id=decision.id,
            action=action,
            state=decision.state,
            answer=outcome.answer,
            review=decision.planner.review if decision.planner else None,
            **_location(outcome.location),
            gates=[GateReport.of(g) for g in outcome.gates],
        )
        sources = "; ".join(
            f"{s.source} at {s.commit[:12]}" if s.commit else f"{s.source} ({s.answer!r} by {s.answered_by})"
            for s in outcome.answer.sources
        )
        waits = " (waits for the owner's accept)" if decision.state == "open" else ""
        lines = [f"{cited.action} {cited.id}: {outcome.answer.value!r} by the planner {outcome.answer.by}{waits}"]
        lines.append(f"  cited: {sources}")
        lines += [f"  | {line}" for s in outcome.answer.sources if s.quote for line in s.quote.splitlines()]
        return cited._told("\n".join(lines))


class Corrected(_Located):
    """An answer replaced (``correct``, or ``override`` of a planner answer); history keeps both."""

    id: str
    action: Literal["corrected", "overridden", "unchanged"]
    answer: Answer
    previous: Answer | None = None
    regated: list[str] = Field(default_factory=list, description="Dependents not merged: re-gated on the answer.")
    rework: list[str] = Field(default_factory=list, description="Dependents already merged: told to rework.")
    gates: list[GateReport] = Field(default_factory=list)

    @classmethod
    def of(cls, outcome: planner_rules.CorrectionOutcome) -> Corrected:
        corrected = cls(
            id=outcome.decision.id,
            action=outcome.action,
            answer=outcome.answer,
            previous=outcome.previous,
            regated=outcome.regated,
            rework=outcome.rework,
            **_location(outcome.location),
            gates=[GateReport.of(g) for g in outcome.gates],
        )
        was = f" (was {outcome.previous.value!r})" if outcome.previous else ""
        text = f"{corrected.action} {corrected.id}: {outcome.answer.value!r} by {outcome.answer.by}{was}"
        if corrected.rework:
            text += f"\n  rework needed: {', '.join(corrected.rework)} (merged with the previous answer)"
        return corrected._told(text)


class Requested(_Located):
    """An owner's act left as their own comment command, for parkbot to record (GitHub, run with a
    person's token: only parkbot's own records carry authority there, and the comment is the owner's own)."""

    id: str
    action: Literal["requested"] = "requested"
    command: str = Field(description="The comment command posted, e.g. `/decide full_original`.")
    by: str = Field(description="Whose comment it is: the owner of the token.")
    comment: str = Field(description="The comment's address.")


class Inventory(_Result):
    """A finished run's inventory, checked against the backlog: every listed decision is in it."""

    origin: str
    status: Literal["done", "failed"]
    none: bool
    decisions: list[str]
    missing: list[str] = Field(default_factory=list)


class DecisionItem(Decision):
    """A stored decision as ``list`` shows it, with the chain of owners it went through."""

    model_config = ConfigDict(
        extra="forbid", defer_build=True, serialize_by_alias=True, validate_by_name=True, validate_by_alias=True
    )
    # ``chain`` in JSON; named otherwise here because Decision.chain() computes it.
    owners_chain: list[str] = Field(
        alias="chain", description="Owners the question travelled through, first to current."
    )
    # ``problems`` in JSON; named otherwise here because Decision.problems is the private attribute's view.
    found_problems: list[str] = Field(
        default_factory=list,
        alias="problems",
        description="Why parts of the stored record carry no authority (edited by someone else, an unverified "
        "answer): the decision reads as it last verifiably was.",
    )

    @property
    def exit_code(self) -> ExitCode:
        return ExitCode.OK

    @classmethod
    def of(cls, decision: Decision, **extra: Any) -> Any:
        # Built, not validated again: the decision was validated when it was read.
        fields = {name: getattr(decision, name) for name in Decision.model_fields}
        built = {**fields, "owners_chain": decision.chain(), "found_problems": list(decision.problems), **extra}
        return cls.model_construct(**built)


#: What the first lines of ``show`` say; every other field follows as ``key: value`` (:mod:`parkbot.details`).
_VIEWED: Shown = {
    **dict.fromkeys(["id", "state", "title", "chain", "owner", "question", "options", "guess", "dependents"]),
    "problems": None,
    "answer": ("value", "by", "at"),
}


class DecisionView(DecisionItem):
    """One decision as ``show`` shows it: the record, where it lives, and its answer (even one recorded
    by a resolution that has not finished yet)."""

    backend: str
    ref: str | None = None
    path: str | None = None
    number: int | None = None
    url: str | None = None

    def text(self) -> str:
        lines = [f"{self.id}  [{self.state}]  {self.title}", f"owner: {' -> '.join(self.owners_chain)}"]
        if self.requester:
            lines.append(f"requester: {self.requester} (stated by the agent)")
        lines.append(f"question: {self.question}")
        for option in self.options:
            mark = "  (agent's guess)" if option.id == self.guess else ""
            lines.append(f"  - {option.id}: {option.label}{mark}")
        if self.dependents:
            joined = ", ".join(self.dependents)
            lines.append(f"blocks: {joined}" if self.blocking else f"dependents (non-blocking): {joined}")
        lines += [f"problem: {problem}" for problem in self.found_problems]
        step = self.planner
        if step is not None and step.state == "waiting" and self.state == "open":
            lines.append(f"with the planner until {step.until.isoformat()} (its owner is assigned after)")
        elif step is not None and step.state == "passed":
            lines.append(f"passed by the planner {step.by}" + (f": {step.reason}" if step.reason else ""))
        if step is not None and step.answer is not None:
            lines.append(f"planner answer: {step.answer.value} by {step.answer.by} (review: {step.review})")
            for cited in step.answer.sources:
                if cited.decision:
                    lines.append(f"  cited {cited.decision}: {cited.answer} by {cited.answered_by}")
                else:
                    lines.append(f"  cited {cited.source} at {cited.commit}:")
                    lines += [f"  | {line}" for line in (cited.quote or "").splitlines()]
        for change in self.corrections:
            why = f" ({change.reason})" if change.reason else ""
            lines.append(
                f"{'corrected' if change.kind == 'correct' else 'overridden'} by {change.by} at "
                f"{change.at.isoformat()}: {change.previous.value} -> {change.answer.value}{why}"
            )
        data = self.model_dump(mode="json", by_alias=True)
        if self.answer is not None:
            flag = " [explicit default: an assumption]" if self.answer.assumption else ""
            pending = " (recorded; resolution not finished, re-run resolve)" if self.state == "open" else ""
            lines.append(f"answer: {self.answer.value} by {self.answer.by} at {data['answer']['at']}{flag}{pending}")
        return "\n".join([*lines, *detail_lines(data, _VIEWED, indent="")])


class DecisionList(_Result):
    """Decisions, oldest first (by answer time with ``answered_since``, else by filing time)."""

    decisions: list[DecisionItem]
    count: int


def _holds_float(value: Any) -> bool:
    """Whether a JSON value holds a float anywhere (pydantic writes some, e.g. ``1e-05``, differently)."""
    pending = [value]
    while pending:
        node = pending.pop()
        if isinstance(node, float):
            return True
        if isinstance(node, dict):
            pending.extend(node.values())
        elif isinstance(node, list):
            pending.extend(node)
    return False


@functools.cache
def _nested_serializers() -> None:
    """Build the serializers of the models a decision holds, once.

    pydantic-core writes a nested model with that model's own serializer, and deferred building
    (``defer_build``) leaves it unbuilt until the model class itself is used; a decision read from the
    backlog only builds :class:`Decision`'s.
    """
    from parkbot.core.models import Assumption, Escalation, Proof

    for model in (Option, Answer, Escalation, Assumption, Citation, Override, Proof):
        model.model_rebuild()


def _item_json(decision: Decision) -> str:
    """A decision's entry in ``list --json``, exactly as ``json.dumps(indent=2)`` writes a :class:`DecisionItem`
    at top level, but written by pydantic-core from the decision's fields (no second model; about 5x quicker)."""
    if _holds_float(decision.work_so_far):
        return json.dumps(DecisionItem.of(decision).model_dump(mode="json"), indent=2, default=str)
    _nested_serializers()
    item = {**vars(decision), "chain": decision.chain(), "problems": list(decision.problems)}  # vars: its fields
    return pydantic_core.to_json(item, indent=2, ensure_ascii=True).decode("ascii")


def _list_row(decision: Decision) -> str:
    return f"{decision.state:<9} {decision.id}  {decision.title}  (owner {decision.owner})"


class PrintedList:
    """``list`` as the command line prints it: each decision kept as its printed text, not as a model.

    Ten thousand decisions take about 100 MB as models and 13 MB as their JSON, so a decision's
    entry is rendered as it is read and the decision is dropped. :meth:`json_parts` joined is
    exactly ``json.dumps(DecisionList.model_dump(mode="json"), indent=2)``.
    """

    def __init__(self, rows: builtins.list[str], items: builtins.list[str], empty: str) -> None:
        self.rows = rows
        self.items = items
        self.empty = empty

    @property
    def count(self) -> int:
        return len(self.rows)

    def text(self) -> str:
        return "\n".join(self.rows) if self.rows else self.empty

    def json_parts(self) -> Iterator[str]:
        """The ``--json`` object in pieces: its head, one piece per decision, its tail."""
        if not self.items:
            yield '{\n  "decisions": [],\n  "count": 0\n}'
            return
        separator = '{\n  "decisions": [\n    '
        for item in self.items:  # one level deeper than at top level: each line indented 4 more
            yield separator + item.replace("\n", "\n    ")
            separator = ",\n    "
        yield f'\n  ],\n  "count": {len(self.items)}\n}}'


class ResumeContext(_Result):
    """What a fresh session needs to continue: the question, the answer and how it was given, the work.

    ``exit_code`` is 1 while the question is still open.
    """

    id: str
    state: DecisionState
    question: str
    options: list[Option]
    answer: str | None
    answered_by: str | None
    answered_at: datetime | None
    assumption: bool = Field(description="The answer is an explicit default: treat it as an assumption.")
    precedent: Citation | None = Field(description="Where a precedent answer came from.")
    guess: str | None
    overrides: list[Override]
    work_so_far: Any = Field(description="What the agent preserved, verbatim.")

    @property
    def exit_code(self) -> ExitCode:
        return ExitCode.BLOCKED if self.state == "open" else ExitCode.OK

    @classmethod
    def of(cls, decision: Decision) -> ResumeContext:
        answer = decision.current_answer  # a corrected answer replaces the first one
        context = cls(
            id=decision.id,
            state=decision.state,
            question=decision.question,
            options=decision.options,
            answer=answer.value if answer else None,
            answered_by=answer.by if answer else None,
            answered_at=answer.at if answer else None,
            assumption=bool(answer and answer.assumption),
            precedent=answer.citation if answer else None,
            guess=decision.guess,
            overrides=decision.overrides,
            work_so_far=decision.work_so_far,
        )
        lines = [f"{decision.id} [{decision.state}]", f"question: {decision.question}"]
        if answer is None:
            lines.append("answer: none yet")
        else:
            how = " (explicit default: an assumption)" if answer.assumption else ""
            if answer.citation:
                how = f" (from precedent {answer.citation.decision})"
            at = context.model_dump(mode="json")["answered_at"]
            lines.append(f"answer: {answer.value} by {answer.by} at {at}{how}")
        work = "work_so_far: " + json.dumps(decision.work_so_far, indent=2, ensure_ascii=False, default=str)
        shown = dict.fromkeys(["id", "state", "question", "answer", "answered_by", "answered_at", "work_so_far"])
        return context._told("\n".join(lines), shown, indent="", last=work)


class Synced(_Result):
    """What ``sync`` did with the remote: ``up-to-date``, ``fetched``, ``pushed`` or ``merged``."""

    remote: str
    action: str
    ignored: list[str] = Field(
        default_factory=list,
        description="Remote records kept but not counted: answers and escalations nobody can prove an owner gave.",
    )
    conflicts: list[dict[str, Any]] = Field(
        default_factory=list,
        description="Decisions two owners answered differently on two copies: the answer kept (the earlier) and "
        "the other (kept in the history), each with value, kind, by and at. Exit code 3 when any.",
    )

    @property
    def exit_code(self) -> ExitCode:
        return ExitCode.REFUSED if self.conflicts else ExitCode.OK


# --- waiting -------------------------------------------------------------------------------


def wait_for_answer(
    poll: Callable[[], Decision],
    timeout: float,
    *,
    sleep: Callable[[float], None] = time.sleep,
    clock: Callable[[], float] = time.monotonic,
    first: float = DEFAULT_POLL[0],
    longest: float = DEFAULT_POLL[1],
) -> Decision:
    """Poll, backing off from ``first`` to ``longest`` seconds, until the decision is no longer open or
    ``timeout`` seconds passed; the decision as last seen (still ``open`` when the window passed)."""
    deadline = clock() + timeout
    interval = first
    while True:
        decision = poll()
        if decision.state != "open":
            return decision
        remaining = deadline - clock()
        if remaining <= 0:
            return decision
        sleep(min(interval, remaining))
        interval = min(interval * 2, longest)


def poller(tracker: Tracker, config: Config, decision_id: str) -> Callable[[], Decision]:
    """One poll per call, each handing the backend what the previous one saw.

    On GitHub this makes every poll after the first a conditional request (``If-None-Match``), which
    costs no rate limit while the decision is unchanged; elsewhere each poll re-reads
    (:func:`parkbot.core.lifecycle.poll_answer`).
    """
    token: PollToken | None = None

    def poll() -> Decision:
        nonlocal token
        decision, token = lifecycle.poll_answer(tracker, config, decision_id, token)
        return decision

    return poll


# --- the backlog ---------------------------------------------------------------------------


@dataclass(frozen=True)
class _Since:
    """``answered_since`` as the caller gave it, resolved against the clock when the list is read."""

    value: Duration | timedelta | datetime | str

    def moment(self, now: datetime) -> datetime:
        value = self.value
        if isinstance(value, datetime):
            return value
        if isinstance(value, str):
            return moment(value, now, what="answered_since")
        return Duration.of(value, what="answered_since").before(now, what="answered_since")


@dataclass(frozen=True)
class _ListQuery:
    """Which decisions ``list`` shows, and in which order."""

    state: ListState
    owner: str | None
    origin: str | None
    since: datetime | None
    awaiting: Awaiting | None = None
    now: datetime | None = None

    @classmethod
    def of(
        cls,
        state: ListState | None,
        owner: str | None,
        origin: str | None,
        answered_since: Duration | timedelta | datetime | str | None,
        now: datetime | None,
        awaiting: Awaiting | None = None,
    ) -> _ListQuery:
        since = None if answered_since is None else _Since(answered_since).moment(now or utcnow())
        wanted = state or ("all" if since is not None else "open")
        if wanted not in ("open", "resolved", "abandoned", "all"):
            raise InvalidInput(f"state {wanted!r}: choose one of open, resolved, abandoned, all")
        folded = None if owner is None else owner.casefold()
        if awaiting is not None and awaiting not in ("planner", "review"):
            raise InvalidInput(f"awaiting {awaiting!r}: choose planner or review")
        return cls(wanted, folded, None if origin is None else origin.lower(), since, awaiting, now or utcnow())

    def matches(self, d: Decision) -> bool:
        return (
            self.state in ("all", d.state)  # an unverified answer reads as open (see parkbot.core.authority)
            and (self.owner is None or d.owner.casefold() == self.owner)
            and (self.origin is None or fnmatch.fnmatchcase(d.origin, self.origin))
            and (self.since is None or (d.answer is not None and d.answer.at >= self.since))
            and self._awaits(d)
        )

    def _awaits(self, d: Decision) -> bool:
        if self.awaiting is None:
            return True
        if self.awaiting == "planner":
            return planner_rules.awaiting_planner(d, self.now or utcnow())
        return planner_rules.review_pending(d)

    def order(self, d: Decision) -> tuple[datetime, str]:
        """Oldest first: by answer time with ``answered_since``, else by filing time."""
        if self.since is not None:
            return (d.answer.at if d.answer else d.updated_at, d.id)
        return (d.created_at, d.id)

    def empty(self) -> str:
        since = f" answered since {self.since.isoformat()}" if self.since is not None else ""
        if self.awaiting == "planner":
            since += " waiting for the planner"
        elif self.awaiting == "review":
            since += " with a planner answer to review"
        return f"no {'' if self.state == 'all' else self.state + ' '}decisions{since}"


class Backlog:
    """The decisions of one repository, in the embedded git backlog or on GitHub."""

    def __init__(self, backend: Backend, *, env: Mapping[str, str] | None = None) -> None:
        self._backend = backend
        self._env = env

    @classmethod
    def open(
        cls,
        repo: str | os.PathLike[str] = ".",
        backend: str = "git",
        *,
        config: str | os.PathLike[str] | None = None,
        env: Mapping[str, str] | None = None,
    ) -> Backlog:
        """The backlog of the repository containing ``repo`` (``git``), or of ``GITHUB_REPOSITORY`` (``github``,
        settings from ``env``, default the process environment). ``config`` defaults to ``.github/parkbot.yml``."""
        environment = os.environ if env is None else env
        opened = open_backend(
            backend, repo_path=Path(repo), config_path=None if config is None else Path(config), env=environment
        )
        return cls(opened, env=environment)

    @property
    def backend(self) -> str:
        """``git`` or ``github``."""
        return self._backend.name

    @property
    def tracker(self) -> Tracker:
        return self._backend.tracker

    @property
    def config(self) -> Config:
        return self._backend.config

    def close(self) -> None:
        """Release what the backend holds open (the git backlog's helper processes)."""
        self._backend.close()

    def __enter__(self) -> Backlog:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # -- filing ---------------------------------------------------------------------------------
    def park(self, result: Result | Mapping[str, Any] | str | bytes) -> Filed | Inventory:
        """File an agent's result: ``needs_input`` becomes a decision, ``done_with_assumptions`` a review item,
        and a ``done``/``failed`` inventory is checked against the backlog (a listed decision that is not
        there is :class:`~parkbot.core.errors.NotFound`)."""
        parsed = parse_result(result)
        tracker, config = self.tracker, self.config
        if isinstance(parsed, NeedsInput):
            filed = Filed.of(lifecycle.park(tracker, parsed, config, filed_by=self._filer()))
            return filed._told(
                f"{filed.action} {filed.id} (owner {filed.owner}) at {_where(_location_of(filed))}", _FILED
            )
        if isinstance(parsed, DoneWithAssumptions):
            filed = Filed.of(lifecycle.park_review(tracker, parsed, config))
            return filed._told(
                f"{filed.action} review item {filed.id} ({len(parsed.assumptions)} assumption(s), owner "
                f"{filed.owner}, non-blocking) at {_where(_location_of(filed))}",
                _FILED,
            )
        return check_inventory(tracker, parsed)

    # -- reading --------------------------------------------------------------------------------
    def show(self, id: str) -> DecisionView:
        """One decision: question, options, state, owner, answer, dependents, where it lives."""
        tracker, config = self.tracker, self.config
        decision = lifecycle.answer_of(tracker, config, id)
        answer = decision.answer or (
            lifecycle.recorded_answer(tracker, config, decision) if decision.state == "open" else None
        )
        view: DecisionView = DecisionView.of(decision, answer=answer, **_location(tracker.location(decision)))
        return view

    def resume(self, id: str) -> ResumeContext:
        """What a fresh session needs to continue; ``exit_code`` 1 while the question is still open."""
        return ResumeContext.of(lifecycle.answer_of(self.tracker, self.config, id))

    def wait(
        self,
        id: str,
        timeout: Duration | timedelta | float | str = "10m",
        *,
        sleep: Callable[[float], None] = time.sleep,
        clock: Callable[[], float] = time.monotonic,
    ) -> ResumeContext:
        """Wait up to ``timeout`` for an answer (``0s``: look once); the context, answered or still ``open``."""
        seconds = Duration.of(timeout, what="timeout", allow_zero=True).seconds
        first, longest = POLL_SCHEDULE.get(self.backend, DEFAULT_POLL)
        decision = wait_for_answer(
            poller(self.tracker, self.config, id), seconds, sleep=sleep, clock=clock, first=first, longest=longest
        )
        return ResumeContext.of(decision)

    def gate(self, ref: str | None = None, *, pr: int | str | None = None) -> GateReport:
        """May this branch (``ref``) or pull request (``pr``, GitHub) merge? ``exit_code`` 1 while blocked.

        On GitHub the result is also published as the gate of the pull request's head.
        """
        if (pr is None) == (ref is None):
            raise InvalidInput("name exactly one thing to gate: a pull request, or a branch", step="gate_target")
        if pr is not None:
            number = str(pr).strip().lstrip("#")
            if not number.isascii() or not number.isdigit():
                raise InvalidInput(f"{pr!r} is not a pull request number")
            if self.backend != "github":
                raise InvalidInput(
                    "pull requests live on GitHub, and this is the embedded git backlog", step="pr_on_github"
                )
            target = f"#{int(number)}"
        else:
            target = f"branch:{ref}"
        return GateReport.of(lifecycle.gate(self.tracker, self.config, target))

    def list(
        self,
        state: ListState | None = None,
        *,
        owner: str | None = None,
        origin: str | None = None,
        answered_since: Duration | timedelta | datetime | str | None = None,
        now: datetime | None = None,
        awaiting: Awaiting | None = None,
    ) -> DecisionList:
        """Decisions, oldest first. ``state`` defaults to ``open``, or to every answered decision with
        ``answered_since`` (a span back from now such as ``1h``, or a moment): then they come in the order
        they were answered, so a supervisor picks up the work that can continue."""
        query = _ListQuery.of(state, owner, origin, answered_since, now, awaiting)
        decisions = sorted(self._listed(query), key=query.order)
        items: builtins.list[DecisionItem] = [DecisionItem.of(d) for d in decisions]
        rows = [_list_row(d) for d in decisions]
        listed = DecisionList(decisions=items, count=len(items))
        return listed._told(
            "\n".join(rows) if rows else self._nothing_listed(query), {"decisions": None, "count": None}
        )

    def list_printed(
        self,
        state: ListState | None = None,
        *,
        owner: str | None = None,
        origin: str | None = None,
        answered_since: Duration | timedelta | datetime | str | None = None,
        now: datetime | None = None,
        as_json: bool = False,
        awaiting: Awaiting | None = None,
    ) -> PrintedList:
        """What :meth:`list` returns, as the command line prints it (its JSON only ``as_json``), read in
        the memory its text takes: ``parkbot list``."""
        query = _ListQuery.of(state, owner, origin, answered_since, now, awaiting)
        found = [(query.order(d), _list_row(d), _item_json(d) if as_json else "") for d in self._listed(query)]
        found.sort(key=lambda entry: entry[0])
        empty = self._nothing_listed(query) if not found else ""
        return PrintedList([row for _, row, _ in found], [item for _, _, item in found] if as_json else [], empty)

    def _listed(self, query: _ListQuery) -> Iterator[Decision]:
        state = None if query.state == "all" else query.state
        return (d for d in lifecycle.decisions(self.tracker, self.config, state) if query.matches(d))

    def _nothing_listed(self, query: _ListQuery) -> str:
        tracker = self.tracker
        hint = tracker.missing_hint() if isinstance(tracker, BacklogHints) else None
        return query.empty() + (f"; {hint}" if hint else "")

    # -- acting as an owner ---------------------------------------------------------------------
    def resolve(
        self,
        id: str,
        answer: str,
        *,
        by: str | None = None,
        default: bool = False,
        source: str = "api",
        now: datetime | None = None,
    ) -> Resolved | Requested:
        """Answer a decision as one of its owners (``by``; in git, default your ``user.email``).

        On GitHub with a person's token the answer is posted as that person's ``/decide`` (or ``/answer``,
        ``/default``) comment, which parkbot's workflow records: :class:`Requested`.
        """
        command: Command = "default" if default else "auto"
        actor = self._actor(by, "answers")
        if self._leaves_commands():
            asked = lifecycle.answer_command(self.tracker, self.config, id, answer, actor, command=command)
            if isinstance(asked, tuple):
                return self._request(*asked, actor)
            outcome = asked
        else:
            outcome = lifecycle.resolve(
                self.tracker, self.config, id, answer, actor, command=command, source=source, now=now
            )
        resolved = Resolved.of(outcome)
        note = " (explicit default, flagged as an assumption)" if resolved.assumption else ""
        # (see the docstring for what a person's token on GitHub does instead)
        return resolved._told(
            f"{resolved.action} {resolved.id}: {resolved.answer.value!r} by {resolved.answer.by}{note}",
            {"id": None, "action": None, "answer": ("value", "by")},
        )

    def escalate(self, id: str, *, by: str | None = None, to: str | None = None) -> Filed | Requested:
        """Hand a question exactly one level up the owner hierarchy."""
        actor = self._actor(by, "escalates")
        if self._leaves_commands():
            decision, text = lifecycle.escalation_command(self.tracker, self.config, id, actor, to=to)
            return self._request(decision, text, actor)
        outcome = lifecycle.escalate(self.tracker, self.config, id, actor, to=to)
        filed = Filed.of(outcome)
        return filed._told(f"escalated {filed.id}: {' -> '.join(filed.chain)}", {"id": None, "chain": None})

    def return_to_requester(self, id: str, *, by: str | None = None) -> Filed | Requested:
        """Hand the question back to the requester of an interactive run."""
        actor = self._actor(by, "acts")
        if self._leaves_commands():
            return self._ask(id, actor, "/return")
        outcome = lifecycle.return_to_requester(self.tracker, self.config, id, actor)
        filed = Filed.of(outcome)
        return filed._told(f"returned {filed.id} to {filed.owner}", {"id": None, "owner": None})

    def accept(self, id: str, *, by: str | None = None) -> Resolved | Requested:
        """Accept a review item's stated assumptions and close it (or, on a question, the planner's answer)."""
        if lifecycle.answer_of(self.tracker, self.config, id).kind == "decision":
            return self.accept_planner(id, by=by)
        actor = self._actor(by, "acts")
        if self._leaves_commands():
            return self._ask(id, actor, "/accept")
        outcome = lifecycle.accept_review(self.tracker, self.config, id, actor)
        resolved = Resolved.of(outcome)
        return resolved._told(f"{resolved.action} {resolved.id}: assumptions accepted", {"id": None, "action": None})

    def override(self, id: str, number: int, text: str, *, by: str | None = None) -> Filed | Requested:
        """Turn assumption ``number`` of a review item into a recorded answer."""
        actor = self._actor(by, "acts")
        if self._leaves_commands():
            return self._ask(id, actor, f"/override {number} {text.strip()}")
        outcome = lifecycle.override_assumption(self.tracker, self.config, id, number, text, actor)
        filed = Filed.of(outcome)
        return filed._told(f"{filed.action} {filed.id}: assumption {number} overridden", {"id": None, "action": None})

    # -- the planner ----------------------------------------------------------------------------
    def cite(
        self,
        id: str,
        answer: str,
        sources: builtins.list[str],
        *,
        by: str | None = None,
        source: str = "api",
        now: datetime | None = None,
    ) -> Cited | Requested:
        """Answer as the configured planner, from checked sources (``docs/x.md#L3-L9`` or a decision id a
        person answered); refused (exit 3) when a source does not hold. See docs/planner.md."""
        actor = self._planner_actor(by, "cites")
        if self._leaves_commands():
            decision = lifecycle.answer_of(self.tracker, self.config, id)
            planner_rules.check_cite_request(self.tracker, self.config, decision, actor, sources)
            return self._request(decision, " ".join(["/cite", answer.strip(), *sources]), actor)
        files = self.tracker if isinstance(self.tracker, planner_rules.SourceFiles) else None
        outcome = planner_rules.cite(
            self.tracker, self.config, id, answer, sources, actor, files=files, source=source, now=now
        )
        return Cited.of(outcome)

    def pass_question(self, id: str, *, by: str | None = None, reason: str | None = None) -> Filed | Requested:
        """The planner cannot answer from its sources: hand the question to its owner now."""
        actor = self._planner_actor(by, "passes")
        if self._leaves_commands():
            decision = lifecycle.answer_of(self.tracker, self.config, id)
            planner_rules.check_cite_request(self.tracker, self.config, decision, actor, None)
            text = "/pass" + (f" {reason.strip()}" if reason and reason.strip() else "")
            return self._request(decision, text, actor)
        filed = Filed.of(planner_rules.pass_question(self.tracker, self.config, id, actor, reason=reason))
        return filed._told(f"{filed.action} {filed.id}: passed to its owner {filed.owner}")

    def correct(
        self, id: str, answer: str, *, reason: str, by: str | None = None, source: str = "api"
    ) -> Corrected | Requested:
        """Correct a resolved decision's answer (whoever answered, or an owner above them): the correction is
        recorded next to the first answer; dependents not merged are re-gated, merged ones told to rework."""
        actor = self._actor(by, "corrects")
        if self._leaves_commands():
            if not reason or not reason.strip():
                raise InvalidInput("say why the answer is corrected (a reason)")
            decision = lifecycle.answer_of(self.tracker, self.config, id)
            planner_rules.check_correct_request(self.tracker, self.config, decision, actor)
            return self._request(decision, f"/correct {answer.strip()} {reason.strip()}", actor)
        outcome = planner_rules.correct(self.tracker, self.config, id, answer, actor, reason=reason, source=source)
        return Corrected.of(outcome)

    def override_planner(
        self, id: str, answer: str, *, reason: str | None = None, by: str | None = None, source: str = "api"
    ) -> Corrected | Requested:
        """The owner's answer replaces the planner's (recorded as an override of it)."""
        actor = self._actor(by, "acts")
        if self._leaves_commands():
            text = f"/override {answer.strip()}" + (f" {reason.strip()}" if reason and reason.strip() else "")
            return self._ask(id, actor, text, any_state=True)
        outcome = planner_rules.override(self.tracker, self.config, id, answer, actor, reason=reason, source=source)
        return Corrected.of(outcome)

    def accept_planner(self, id: str, *, by: str | None = None) -> Resolved | Requested:
        """The owner keeps the planner's answer: its review item is cleared."""
        actor = self._actor(by, "acts")
        if self._leaves_commands():
            return self._ask(id, actor, "/accept", any_state=True)
        outcome = planner_rules.accept(self.tracker, self.config, id, actor)
        resolved = Resolved.of(outcome)
        return resolved._told(f"{resolved.id}: the planner's answer {resolved.answer.value!r} accepted")

    def hand_over(self, now: datetime | None = None) -> builtins.list[Filed]:
        """Hand every question whose planner window ended to its owner (a scheduled run does this)."""
        return [Filed.of(o) for o in planner_rules.expire(self.tracker, self.config, now=now)]

    # -- sharing --------------------------------------------------------------------------------
    def sync(self, remote: str = "origin") -> Synced:
        """Share the embedded backlog with a remote: fetch, merge, push (git backend only)."""
        tracker = self.tracker
        if not isinstance(tracker, Syncing):
            raise InvalidInput("sync shares the embedded git backlog; on GitHub the issues are already shared")
        result = tracker.sync(remote)
        synced = Synced(
            remote=remote,
            action=result.action,
            ignored=list(result.ignored),
            conflicts=[c.as_dict() for c in result.conflicts],
        )
        return synced._told(f"{self.config.backlog_ref} <-> {remote}: {result.summary()}", {"remote": None})

    @staticmethod
    def schema() -> dict[str, Any]:
        """The JSON Schema of agent results (``parkbot schema``)."""
        return result_json_schema()

    def _leaves_commands(self) -> bool:
        """Whether an owner's act must be left as their own comment command (see :class:`Requested`)."""
        tracker = self.tracker
        return isinstance(tracker, OwnIdentityRecords) and not tracker.writes_as_itself()

    def _ask(self, id: str, actor: Actor, command: str, *, any_state: bool = False) -> Requested:
        """Post ``command`` (``/return``, ``/accept``, ``/override ...``) as ``actor``'s own comment, once the
        decision is open (``any_state``: also resolved) and ``actor`` one of its owners; the command's own rules
        apply when parkbot records it."""
        if any_state:
            decision = lifecycle.answer_of(self.tracker, self.config, id)
            authority.authorize(self.tracker, self.config, decision, actor)
            return self._request(decision, command, actor)
        return self._request(lifecycle.act_command(self.tracker, self.config, id, actor, command), command, actor)

    def _request(self, decision: Decision, text: str, actor: Actor) -> Requested:
        tracker = self.tracker
        assert isinstance(tracker, OwnIdentityRecords)
        url = tracker.post_command(decision, text)
        location = tracker.location(decision)
        requested = Requested(id=decision.id, command=text, by=actor.login, comment=url, **_location(location))
        return requested._told(
            f"requested {decision.id}: posted {text!r} as {actor.login} on {_where(location)}; parkbot records it "
            f"when the comment's event reaches its workflow (follow it with `parkbot wait {decision.id}`)",
            {"id": None, "command": None, "by": None, **_LOCATION},
        )

    def _filer(self) -> str | None:
        """Who files, where the backend can tell (so that the planner never answers a question it filed)."""
        if self.config.planner is None:
            return None
        try:
            return self.tracker.actor(None).login
        except InvalidInput:
            return None

    def _planner_actor(self, by: str | None, verb: str) -> Actor:
        """Who acts as the planner: bots included (an App), since the core checks it is exactly the planner."""
        tracker = self.tracker
        if not isinstance(tracker, planner_rules.AgentIdentity):
            return self._actor(by, verb)
        try:
            return tracker.agent_actor(by)
        except InvalidInput as exc:
            raise InvalidInput(f"say who {verb} with --by LOGIN (or PARKBOT_ACTOR): {exc.message}") from None

    def _actor(self, by: str | None, verb: str) -> Actor:
        """Who acts: what the backend can tell from its own credentials and ``by`` (see ``Tracker.actor``)."""
        try:
            return self.tracker.actor(by)
        except InvalidInput as exc:
            raise InvalidInput(f"parkbot cannot tell who {verb}: {exc.message}", step="name_actor") from None


def _location_of(result: _Located) -> Location:
    return Location(result.backend, result.ref, result.path, result.number, result.url)


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

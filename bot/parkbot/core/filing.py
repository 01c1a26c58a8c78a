"""Filing from a branch: what an agent left in a commit before its workspace was torn down, and the
rules that judge it. Pure over the bytes an adapter read (:class:`FiledFiles`); parking goes through
the lifecycle, so a branch obeys exactly the rules ``parkbot park`` does.

The rules
---------
* Each ``needs_input`` result file is parked; a ``done_with_assumptions`` result is parked as a review
  item; other results in that folder are reported and skipped.
* The inventory says what the run surfaced: ``{"none": true}`` (it looked and found nothing) or
  ``{"decisions": [...]}`` (ids or keys, each of which must now be in the backlog). Silence is never
  taken for "no questions", because a crashed agent is silent too: on an agent branch a commit with
  neither result files nor an inventory fails its gate, as do broken files, a contradicting or
  incomplete inventory, and refused results.
* **The origin rule.** A result's own ``origin`` is kept, never rewritten (ids are derived from it). On
  an agent branch it is *checked*: the branch's origin is the first path component after the matched
  agent prefix (``agent/billing-42`` and ``agent/billing-42/retry`` both speak for ``billing-42``), and a
  file for any other origin is refused: a branch may only speak for its own task, or an agent could
  rewrite another task's open question. On other branches the origin is taken as written.
* A blocking result filed from an agent branch also lists that branch among its dependents, so the
  branch's pull request stays blocked until the question is answered, even if the agent forgot to say so.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any, Literal

from parkbot.core import lifecycle
from parkbot.core.config import Config
from parkbot.core.errors import InvalidInput, NotFound, Reason, Refused
from parkbot.core.identity import normalize_name
from parkbot.core.models import (
    MAX_DEPENDENTS,
    Decision,
    Done,
    DoneWithAssumptions,
    Failed,
    NeedsInput,
    parse_dependent,
    parse_result,
)
from parkbot.core.tracker import CommitGates, GateResult, Tracker

#: Bounds, so that one push cannot exhaust the runner or the API.
MAX_FILE_BYTES = 2 * 1024 * 1024
MAX_RESULT_FILES = 200

NO_INVENTORY = (
    "agent filed no inventory: neither result files under {decisions} nor {inventory} in {sha}; "
    'an agent that found nothing must say so with {{"none": true}}'
)

AgentResult = NeedsInput | DoneWithAssumptions | Done | Failed


@dataclass(frozen=True)
class FiledFiles:
    """What a commit holds under the configured paths, as read: result files and the inventory file.

    A file the adapter would not read (too large, too many) is in ``errors``; an inventory it would not
    read carries the reason as text instead of bytes.
    """

    sha: str
    results: tuple[tuple[str, bytes], ...] = ()
    inventory: tuple[str, bytes | str] | None = None
    errors: tuple[tuple[str, str], ...] = ()


@dataclass
class BranchFiles:
    """What a commit holds, parsed; problems kept per file."""

    sha: str
    results: list[tuple[str, AgentResult]] = field(default_factory=list)
    errors: list[tuple[str, str]] = field(default_factory=list)  # (path, problem)
    inventory: Done | Failed | None = None
    inventory_path: str | None = None
    inventory_error: str | None = None

    @property
    def empty(self) -> bool:
        """Nothing filed at all: no result file (valid or not) and no inventory file."""
        return not self.results and not self.errors and self.inventory is None and self.inventory_error is None


def _json(data: bytes) -> Any:
    try:
        return json.loads(data)
    except (json.JSONDecodeError, UnicodeDecodeError) as exc:
        raise InvalidInput(f"is not valid JSON: {exc}") from None
    except RecursionError:
        raise InvalidInput("is nested too deeply to read") from None


def parse_inventory(data: Any, *, default_origin: str | None = None) -> Done | Failed:
    """An inventory: a ``done``/``failed`` result, or ``{"origin", "decisions" | "none"}``."""
    if not isinstance(data, dict):
        raise InvalidInput('must be a JSON object such as {"origin": "...", "none": true}')
    data = dict(data)
    data.setdefault("status", "done")
    if default_origin is not None:
        data.setdefault("origin", default_origin)
    parsed = parse_result(data)
    if not isinstance(parsed, Done | Failed):
        raise InvalidInput(f"must be a done/failed result or an inventory, not a {parsed.status} result")
    return parsed


def parse_filed(filed: FiledFiles, *, default_origin: str | None = None) -> BranchFiles:
    """Parse every result file and the inventory; each problem stays with its file."""
    out = BranchFiles(sha=filed.sha, errors=list(filed.errors))
    for path, data in filed.results:
        try:
            out.results.append((path, parse_result(_json(data))))
        except InvalidInput as exc:
            out.errors.append((path, exc.message))
    if filed.inventory is not None:
        path, content = filed.inventory
        out.inventory_path = path
        if isinstance(content, str):
            out.inventory_error = content
        else:
            try:
                out.inventory = parse_inventory(_json(content), default_origin=default_origin)
            except InvalidInput as exc:
                out.inventory_error = exc.message
    return out


# --- branches and origins --------------------------------------------------------------------


def _literal_prefix(pattern: str) -> str:
    """``agent/**`` -> ``agent/``; ``bots/*/x`` -> ``bots/``: the pattern up to its first wildcard's folder."""
    cut = min((i for i, c in enumerate(pattern) if c in "*?["), default=len(pattern))
    head = pattern[:cut]
    return head[: head.rfind("/") + 1] if "/" in head else ""


def branch_origin(branch: str, config: Config) -> str | None:
    """The origin an agent branch speaks for: the first path component after its agent prefix.

    None when the branch is not agent-owned, or when that component is not a valid origin.
    """
    for pattern in config.agent_branches:
        if not Config(agent_branches=[pattern]).is_agent_branch(branch):
            continue
        rest = branch[len(_literal_prefix(pattern)) :]
        first = rest.split("/", 1)[0]
        try:
            return normalize_name(first, what="origin")
        except ValueError:
            return None
    return None


def with_branch(result: NeedsInput, branch: str) -> NeedsInput:
    """A blocking result from an agent branch also blocks that branch (within the dependents limit)."""
    target = parse_dependent(branch)
    if not result.blocking or target in result.dependents or len(result.dependents) >= MAX_DEPENDENTS:
        return result
    return result.model_copy(update={"dependents": [*result.dependents, target]})


# --- what is wrong with a commit ------------------------------------------------------------


@dataclass(frozen=True)
class Problem:
    """Something that fails the commit's gate; ``exit_code`` follows the CLI contract."""

    message: str
    exit_code: int = 2
    reason: Reason = "invalid"
    path: str | None = None


def static_problems(files: BranchFiles, config: Config, *, agent: bool, origin: str | None) -> list[Problem]:
    """Problems visible in the commit alone: silence on an agent branch, broken files, foreign origins."""
    if files.empty:
        if not agent:
            return []
        message = NO_INVENTORY.format(
            decisions=config.paths.decisions, inventory=config.paths.inventory, sha=files.sha[:12]
        )
        return [Problem(message, exit_code=1, reason="no_inventory")]
    problems = [Problem(f"{path}: {problem}", path=path) for path, problem in files.errors]
    where = files.inventory_path or config.paths.inventory
    if agent:
        for path, result in files.results:
            mismatch = origin_problem(result.origin, origin, path=path)
            if mismatch is not None:
                problems.append(mismatch)
        if files.inventory is not None:
            mismatch = origin_problem(files.inventory.origin, origin, path=where)
            if mismatch is not None:
                problems.append(mismatch)
    if files.inventory_error is not None:
        problems.append(Problem(f"{where}: {files.inventory_error}", path=where))
    elif files.inventory is not None and files.inventory.none:
        filed = len(files.results) + len(files.errors)
        if filed:
            problems.append(
                Problem(f"{where} says none: true, but {filed} result file(s) were filed with it", path=where)
            )
    return problems


def origin_problem(result_origin: str, origin: str | None, *, path: str) -> Problem | None:
    """On an agent branch, a file may only speak for the branch's own origin."""
    if origin is None:
        return Problem(
            f"{path}: the agent branch names no valid origin (expected agent/<origin>[/...]), "
            f"so it may not file for {result_origin!r}",
            exit_code=3,
            reason="origin_mismatch",
            path=path,
        )
    if result_origin != origin:
        return Problem(
            f"{path}: speaks for origin {result_origin!r}, but the branch belongs to {origin!r}; "
            "a branch may only file questions of its own task",
            exit_code=3,
            reason="origin_mismatch",
            path=path,
        )
    return None


def unfiled(tracker: Tracker, inventory: Done | Failed, *, filed: frozenset[str] | set[str] = frozenset()) -> list[str]:
    """The decisions an inventory lists that are neither filed alongside it nor in the backlog."""
    if inventory.none:
        return []
    return [did for did in inventory.decision_ids() if did not in filed and tracker.find(did) is None]


def missing_problems(tracker: Tracker, files: BranchFiles) -> list[Problem]:
    """Decisions the inventory lists that are neither filed in this commit nor in the backlog."""
    if files.inventory is None:
        return []
    filed = {r.decision_id for _, r in files.results if isinstance(r, NeedsInput)}
    missing = unfiled(tracker, files.inventory, filed=filed)
    if not missing:
        return []
    where = files.inventory_path or "the inventory"
    return [Problem(f"{where} lists decisions that were not filed: {', '.join(missing)}", reason="missing")]


def collision_problems(tracker: Tracker, files: BranchFiles) -> list[Problem]:
    """Results whose id is taken by a different question (what ``park`` would refuse)."""
    problems = []
    for path, result in files.results:
        if not isinstance(result, NeedsInput):
            continue
        existing = tracker.find(result.decision_id)
        if existing is not None and existing.title != result.effective_title:
            problems.append(
                Problem(
                    f"{path}: identity collision: {result.decision_id} already exists with the title "
                    f"{existing.title!r}",
                    exit_code=3,
                    reason="collision",
                    path=path,
                )
            )
    return problems


# --- an inventory on its own (parkbot park with a done/failed result) ------------------------------


def check_inventory(tracker: Tracker, result: Done | Failed) -> None:
    """Every decision a finished run lists must be in the backlog; :class:`NotFound` names those that are not."""
    missing = unfiled(tracker, result)
    if missing:
        raise NotFound(
            f"{result.origin}: the inventory lists decisions that are not in the backlog: {', '.join(missing)}; "
            "park their needs_input results first"
        )


# --- filing a pushed commit -------------------------------------------------------------------

StepKind = Literal["parked", "already_resolved", "not_a_question", "problem", "none_surfaced"]


@dataclass(frozen=True)
class Step:
    """One thing filing a commit did, in order."""

    kind: StepKind
    message: str = ""
    path: str | None = None
    outcome: lifecycle.ParkOutcome | None = None
    problem: Problem | None = None
    decision_id: str | None = None


@dataclass(frozen=True)
class CommitFailure:
    """The commit's gate failed: the one-line summary, and whether the backend could show it."""

    summary: str
    exit_code: int
    reasons: tuple[Reason, ...]
    published: bool


@dataclass(frozen=True)
class FilingReport:
    """What filing one commit did: the steps in order and, if any problem, the failed gate."""

    sha: str
    steps: list[Step]
    failure: CommitFailure | None = None

    @property
    def empty(self) -> bool:
        return not self.steps and self.failure is None


def fail_commit(tracker: Tracker, sha: str, problems: list[Problem]) -> CommitFailure:
    """Fail ``sha``'s gate naming the first problem (where the backend has commit gates)."""
    first = problems[0].message
    summary = first if len(problems) == 1 else f"{len(problems)} problems; first: {first}"
    published = isinstance(tracker, CommitGates)
    if isinstance(tracker, CommitGates):
        tracker.publish_commit_failure(sha, summary)
    return CommitFailure(summary, max(p.exit_code for p in problems), tuple(p.reason for p in problems), published)


def file_commit(
    tracker: Tracker,
    config: Config,
    files: BranchFiles,
    *,
    branch: str,
    agent: bool,
    origin: str | None,
    now: datetime | None = None,
    filed_by: str | None = None,
) -> FilingReport:
    """Park what the commit holds, check the inventory, and fail the commit's gate on any problem.

    ``filed_by`` is who filed the commit's questions, as the backend says (the planner never answers one).
    """
    problems = static_problems(files, config, agent=agent, origin=origin)
    if files.empty:
        return FilingReport(files.sha, [], fail_commit(tracker, files.sha, problems) if problems else None)
    steps = [Step("problem", p.message, p.path, problem=p) for p in problems]
    skip = {p.path for p in problems if p.reason == "origin_mismatch"}
    parked = [
        _park_one(tracker, config, path, result, branch=branch, agent=agent, now=now, filed_by=filed_by)
        for path, result in files.results
        if path not in skip
    ]
    steps += parked
    problems += [step.problem for step in parked if step.problem is not None]
    missing = missing_problems(tracker, files)
    steps += [Step("problem", p.message, p.path, problem=p) for p in missing]
    problems += missing
    if files.inventory is not None and files.inventory.none and not problems:
        steps.append(Step("none_surfaced", f"{files.inventory.origin}: no decisions surfaced (stated explicitly)"))
    failure = fail_commit(tracker, files.sha, problems) if problems else None
    return FilingReport(files.sha, steps, failure)


def _park_one(
    tracker: Tracker,
    config: Config,
    path: str,
    result: AgentResult,
    *,
    branch: str,
    agent: bool,
    now: datetime | None,
    filed_by: str | None = None,
) -> Step:
    try:
        if isinstance(result, NeedsInput):
            filed = with_branch(result, branch) if agent else result
            outcome = lifecycle.park(tracker, filed, config, now=now, filed_by=filed_by)
        elif isinstance(result, DoneWithAssumptions):
            outcome = lifecycle.park_review(tracker, result, config, now=now)
        else:
            return Step(
                "not_a_question", f"{path}: a {result.status} result is not a question; put it in the inventory"
            )
    except Refused as exc:
        did = result.decision_id if isinstance(result, NeedsInput) else None
        if exc.reason == "resolved":
            # The agent's branch still holds a result that has since been answered: not a problem.
            return Step("already_resolved", f"{path}: {exc.message}", path, decision_id=did)
        problem = Problem(f"{path}: {exc.message}", exit_code=int(exc.exit_code), reason=exc.reason, path=path)
        return Step("problem", problem.message, path, problem=problem)
    except InvalidInput as exc:
        problem = Problem(f"{path}: {exc.message}", reason=exc.reason, path=path)
        return Step("problem", problem.message, path, problem=problem)
    return Step("parked", path=path, outcome=outcome, decision_id=outcome.decision.id)


# --- the gate of an agent branch's head (a pull request from it) --------------------------------


def head_problems(tracker: Tracker, config: Config, files: BranchFiles, *, origin: str | None) -> list[Problem]:
    """What filing this head commit would fail it for, without parking anything."""
    problems = static_problems(files, config, agent=True, origin=origin)
    if files.empty:
        return problems
    return problems + collision_problems(tracker, files) + missing_problems(tracker, files)


def filed_for_branch(
    tracker: Tracker, config: Config, files: BranchFiles, branch: str, *, known: set[str]
) -> list[Decision]:
    """Open decisions the head commit filed for this branch that the backend has not linked yet.

    A pull request opened after its agent branch was pushed has no recorded link to the questions that
    push parked (they name the branch, and there was no pull request then). The head commit holds their
    result files, so the link is made here, durably (``block_dependents``).
    """
    target = f"branch:{branch}"
    found: list[Decision] = []
    for _, result in files.results:
        if not isinstance(result, NeedsInput) or result.decision_id in known:
            continue
        stored = tracker.find(result.decision_id)
        decision = lifecycle.verify(tracker, config, stored) if stored is not None else None
        if decision is None or decision.state == "resolved" or not decision.blocking:
            continue
        if target not in decision.dependents:
            continue
        tracker.block_dependents(decision)
        known.add(decision.id)
        found.append(decision)
    return found


@dataclass(frozen=True)
class HeadGate:
    """The gate of an agent branch's head: the decisions' verdict, and what else fails the commit."""

    result: GateResult
    failure: CommitFailure | None = None


def gate_agent_head(
    tracker: Tracker,
    config: Config,
    target: str,
    *,
    branch: str,
    sha: str,
    files: BranchFiles | None,
    unreadable: Problem | None = None,
) -> HeadGate:
    """Gate ``target`` (``#N``) whose head is the agent branch ``branch`` at ``sha``.

    Blocked by its linked decisions and by those its head commit filed; failed outright when the head
    commit would fail filing (no inventory, broken files, another origin) or could not be read.
    """
    origin = branch_origin(branch, config)
    problems = [unreadable] if unreadable is not None else []
    if files is not None:
        problems += head_problems(tracker, config, files, origin=origin)
    linked = lifecycle.linked(tracker, config, target)
    if files is not None:
        linked += filed_for_branch(tracker, config, files, branch, known={d.id for d in linked})
    result = lifecycle.evaluate_gate(target, linked)
    if not problems:
        tracker.publish_gate(result)
        return HeadGate(result)
    return HeadGate(result, fail_commit(tracker, sha, problems))

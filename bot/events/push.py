"""``push`` -> the decisions an agent filed from its branch before its workspace was torn down.

What is read, and from where
----------------------------
Every ``*.json`` file under ``config.paths.decisions`` (default ``.parkbot/decisions/``) and the
inventory file ``config.paths.inventory`` (default ``.parkbot/inventory.json``) are read **from the
pushed commit** (``payload.after``) with GitPython (``repo.commit(sha).tree / path``), never from the
working tree: whatever a workflow step did to the checkout cannot change what the agent filed.

What happens
------------
* each ``needs_input`` result is parked (``lifecycle.park``); a ``done_with_assumptions`` result is
  parked as a review item; other results in that folder are reported and skipped;
* the inventory is how an agent says what it surfaced: ``{"none": true}`` (it looked and found
  nothing) or ``{"decisions": [...]}`` (ids or keys, each of which must now be in the backlog). It
  may be a ``done``/``failed`` result, or just those keys plus ``origin``;
* on a branch the config marks as agent-owned (``agent_branches``, default ``agent/**``), a push
  with **neither** result files nor an inventory is a failing gate: the commit status
  ``parkbot/decisions`` is set to ``failure`` on the pushed commit, saying the agent filed no
  inventory. Silence is never taken for "no questions", because a crashed agent is silent too. A
  broken result file, a contradicting or incomplete inventory, or a refused result fail the same way;
* branch deletions (``deleted: true``) and tag pushes are ignored without any API call.

The origin rule
---------------
A result's own ``origin`` is kept, never rewritten (ids are derived from it, and silently rewriting
an id would merge distinct questions). On an agent branch it is **checked**: the branch's origin is
the first path component after the matched agent prefix (``agent/billing-42`` and
``agent/billing-42/retry-2`` both give ``billing-42``), and a result (or inventory) naming another
origin is refused: a branch may only speak for its own task, or an agent could rewrite another
task's open question. On other branches (people committing result files) the origin is taken as
written, as ``parkbot park`` does.

A blocking result filed from an agent branch also lists that branch among its dependents, so the
branch's pull request stays blocked until the question is answered, even if the agent forgot to say
so.
"""

from __future__ import annotations

import json
import os
import re
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath
from typing import Any

import git
from gitdb.exc import BadName, BadObject

from bot.core import lifecycle
from bot.core.config import Config
from bot.core.errors import InvalidInput, Refused
from bot.core.identity import normalize_name
from bot.core.models import Done, DoneWithAssumptions, Failed, NeedsInput, parse_dependent, parse_result
from bot.core.tracker import CommitGates
from bot.events.base import Context, Event, Item, gate_item, ignored
from bot.events.router import Router

router = Router()

ZERO_SHA = "0" * 40
_SHA = re.compile(r"^[0-9a-f]{40}$")
#: Bounds, so that one push cannot exhaust the runner or the API.
MAX_FILE_BYTES = 2 * 1024 * 1024
MAX_RESULT_FILES = 200

NO_INVENTORY = (
    "agent filed no inventory: neither result files under {decisions} nor {inventory} in {sha}; "
    'an agent that found nothing must say so with {{"none": true}}'
)


class CommitUnavailable(InvalidInput):
    """The commit to read is not in the local repository."""


@dataclass
class BranchFiles:
    """What a commit holds under the configured paths, parsed; problems kept per file."""

    sha: str
    results: list[tuple[str, Any]] = field(default_factory=list)  # (path, parsed result)
    errors: list[tuple[str, str]] = field(default_factory=list)  # (path, problem)
    inventory: Done | Failed | None = None
    inventory_path: str | None = None
    inventory_error: str | None = None

    @property
    def empty(self) -> bool:
        """Nothing filed at all: no result file (valid or not) and no inventory file."""
        return not self.results and not self.errors and self.inventory is None and self.inventory_error is None


# --- reading a commit ------------------------------------------------------------------------


def _clean(path: str) -> str:
    parts = [p for p in PurePosixPath(path.strip()).parts if p not in (".", "/")]
    if any(p == ".." for p in parts):
        raise InvalidInput(f"configured path {path!r} may not contain '..'")
    return "/".join(parts)


def open_repo(repo_path: str | Path) -> git.Repo:
    try:
        return git.Repo(repo_path, search_parent_directories=True)
    except (git.InvalidGitRepositoryError, git.NoSuchPathError):
        raise InvalidInput(
            f"{repo_path} is not inside a git repository: check the repository out first "
            "(actions/checkout) so parkbot can read the pushed commit"
        ) from None


def find_commit(repo: git.Repo, sha: str, *, fetch: bool = True) -> git.Commit:
    """The commit ``sha``; fetched from ``origin`` once if the checkout does not have it."""
    if not _SHA.match(sha):
        raise InvalidInput(f"{sha!r} is not a full commit sha")
    try:
        return repo.commit(sha)
    except (BadName, BadObject, ValueError):
        pass
    if fetch and "origin" in [r.name for r in repo.remotes]:
        try:
            repo.git.fetch("--no-tags", "--depth=1", "origin", sha, env={**os.environ, "GIT_TERMINAL_PROMPT": "0"})
            return repo.commit(sha)
        except (git.GitCommandError, BadName, BadObject, ValueError):
            pass
    raise CommitUnavailable(
        f"commit {sha} is not in the checkout at {repo.working_tree_dir}: check it out "
        "(actions/checkout with ref set to that commit) so parkbot can read what the agent filed"
    )


def _blob(tree: git.Tree, path: str) -> git.Blob | None:
    try:
        obj = tree / path
    except KeyError:
        return None
    return obj if isinstance(obj, git.Blob) else None


def _read_json(blob: git.Blob) -> Any:
    if blob.size > MAX_FILE_BYTES:
        raise InvalidInput(f"is {blob.size} bytes; at most {MAX_FILE_BYTES} are read")
    data = blob.data_stream.read()
    try:
        return json.loads(data)
    except (json.JSONDecodeError, UnicodeDecodeError) as exc:
        raise InvalidInput(f"is not valid JSON: {exc}") from None


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


def read_branch_files(
    repo: git.Repo, sha: str, config: Config, *, default_origin: str | None = None, fetch: bool = True
) -> BranchFiles:
    """Parse every result file and the inventory in commit ``sha`` (never the working tree)."""
    commit = find_commit(repo, sha, fetch=fetch)
    tree = commit.tree
    out = BranchFiles(sha=commit.hexsha)
    folder = _clean(config.paths.decisions)
    try:
        node = tree / folder if folder else tree
    except KeyError:
        node = None
    if isinstance(node, git.Tree):
        blobs = sorted(
            (item for item in node.traverse() if isinstance(item, git.Blob) and item.path.endswith(".json")),
            key=lambda b: b.path,
        )
        if len(blobs) > MAX_RESULT_FILES:
            out.errors.append((folder, f"holds {len(blobs)} result files; at most {MAX_RESULT_FILES} are read"))
            blobs = blobs[:MAX_RESULT_FILES]
        inventory_path = _clean(config.paths.inventory)
        for blob in blobs:
            if blob.path == inventory_path:
                continue
            try:
                out.results.append((blob.path, parse_result(_read_json(blob))))
            except InvalidInput as exc:
                out.errors.append((blob.path, exc.message))
    inventory_path = _clean(config.paths.inventory)
    blob = _blob(tree, inventory_path)
    if blob is not None:
        out.inventory_path = inventory_path
        try:
            out.inventory = parse_inventory(_read_json(blob), default_origin=default_origin)
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


def branch_of(event: Event) -> str | None:
    ref = event.get("ref", str)
    return ref.removeprefix("refs/heads/") if ref.startswith("refs/heads/") else None


# --- what is wrong with a commit ------------------------------------------------------------


@dataclass(frozen=True)
class Problem:
    """Something that fails the commit's gate; ``exit_code`` follows the CLI contract."""

    message: str
    exit_code: int = 2
    reason: str = "invalid"
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


def missing_problems(tracker: Any, files: BranchFiles) -> list[Problem]:
    """Decisions the inventory lists that are neither filed in this commit nor in the backlog."""
    inventory = files.inventory
    if inventory is None or inventory.none:
        return []
    filed = {r.decision_id for _, r in files.results if isinstance(r, NeedsInput)}
    missing = [did for did in inventory.decision_ids() if did not in filed and tracker.find(did) is None]
    if not missing:
        return []
    where = files.inventory_path or "the inventory"
    return [Problem(f"{where} lists decisions that were not filed: {', '.join(missing)}", reason="missing")]


def collision_problems(tracker: Any, files: BranchFiles) -> list[Problem]:
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


def problem_item(problem: Problem, branch: str) -> Item:
    return Item(
        "refused" if problem.exit_code == 3 else "error",
        problem.message,
        target=f"branch:{branch}",
        level="error",
        exit_code=problem.exit_code,
        data={"reason": problem.reason},
    )


def fail_commit(ctx: Context, problems: list[Problem], *, branch: str, sha: str, target: str | None = None) -> Item:
    """Publish ``failure`` on ``sha`` naming the first problem; the item for the summary."""
    first = problems[0].message
    summary = first if len(problems) == 1 else f"{len(problems)} problems; first: {first}"
    tracker = ctx.tracker
    published = isinstance(tracker, CommitGates)
    if isinstance(tracker, CommitGates):
        tracker.publish_commit_failure(sha, summary)
    note = "" if published else " (this backend has no commit statuses)"
    number = int(target[1:]) if target and target.startswith("#") else None
    return Item(
        "gate",
        f"{target or branch} @ {sha[:12]}: failure: {summary}{note}",
        target=target or f"branch:{branch}",
        number=number,
        gate_state="failure",
        level="error",
        exit_code=max(p.exit_code for p in problems),
        data={"sha": sha, "reasons": [p.reason for p in problems], "published": published},
    )


# --- the handler -----------------------------------------------------------------------------


@router.register("push")
def on_push(event: Event, ctx: Context) -> list[Item]:
    after = event.get("after", str)
    ref = event.get("ref", str)
    if event.get("deleted", bool, default=False) or after == ZERO_SHA:
        return ignored(f"{ref} was deleted: nothing to read")
    branch = branch_of(event)
    if branch is None:
        return ignored(f"{ref} is not a branch: parkbot reads decisions from branches only")
    if not _SHA.match(after):
        raise InvalidInput(f"malformed push payload: after should be a commit sha, not {after!r}")
    repo = open_repo(ctx.repo_path)
    config = ctx.config
    agent = config.is_agent_branch(branch)
    origin = branch_origin(branch, config) if agent else None
    try:
        files = read_branch_files(repo, after, config, default_origin=origin)
    finally:
        repo.close()
    return file_branch(ctx, files, branch=branch, agent=agent, origin=origin)


def file_branch(ctx: Context, files: BranchFiles, *, branch: str, agent: bool, origin: str | None) -> list[Item]:
    """Park what the commit holds, check the inventory, and fail the commit's gate on any problem."""
    config = ctx.config
    problems = static_problems(files, config, agent=agent, origin=origin)
    if files.empty:
        if not problems:
            return ignored(f"{branch} @ {files.sha[:12]}: no result files and no inventory (not an agent branch)")
        return [fail_commit(ctx, problems, branch=branch, sha=files.sha)]
    items = [problem_item(p, branch) for p in problems]
    skip = {p.path for p in problems if p.reason == "origin_mismatch"}
    for path, result in files.results:
        if path in skip:
            continue
        items.extend(_park_one(ctx, path, result, branch=branch, agent=agent, problems=problems))
    missing = missing_problems(ctx.tracker, files)
    items += [problem_item(p, branch) for p in missing]
    problems += missing
    if files.inventory is not None and files.inventory.none and not problems:
        items.append(Item("ignored", f"{files.inventory.origin}: no decisions surfaced (stated explicitly)"))
    if problems:
        items.append(fail_commit(ctx, problems, branch=branch, sha=files.sha))
    return items


def _park_one(ctx: Context, path: str, result: Any, *, branch: str, agent: bool, problems: list[Problem]) -> list[Item]:
    try:
        if isinstance(result, NeedsInput):
            outcome: lifecycle.ParkOutcome = lifecycle.park(
                ctx.tracker, _with_branch(result, branch) if agent else result, ctx.config, now=ctx.now
            )
        elif isinstance(result, DoneWithAssumptions):
            outcome = lifecycle.park_review(ctx.tracker, result, ctx.config, now=ctx.now)
        else:
            return [Item("ignored", f"{path}: a {result.status} result is not a question; put it in the inventory")]
    except Refused as exc:
        if exc.reason == "resolved":
            # The agent's branch still holds a result that has since been answered: not a problem.
            return [
                Item(
                    "parked",
                    f"{path}: {exc.message}",
                    decision_id=getattr(result, "decision_id", None),
                    action="already_resolved",
                    target=f"branch:{branch}",
                )
            ]
        problem = Problem(f"{path}: {exc.message}", exit_code=int(exc.exit_code), reason=exc.reason, path=path)
        problems.append(problem)
        return [problem_item(problem, branch)]
    except InvalidInput as exc:
        problem = Problem(f"{path}: {exc.message}", reason=exc.reason, path=path)
        problems.append(problem)
        return [problem_item(problem, branch)]
    location = outcome.location
    return [
        Item(
            "parked",
            f"{outcome.action} {outcome.decision.id} ({path}, owner {outcome.decision.owner})",
            decision_id=outcome.decision.id,
            number=location.number,
            url=location.url,
            action=outcome.action,
            target=f"branch:{branch}",
            data={"path": path, "owner": outcome.decision.owner},
        ),
        *(gate_item(g) for g in outcome.gates),
    ]


def _with_branch(result: NeedsInput, branch: str) -> NeedsInput:
    """A blocking result from an agent branch also blocks that branch."""
    target = parse_dependent(branch)
    if not result.blocking or target in result.dependents or len(result.dependents) >= 50:
        return result
    return result.model_copy(update={"dependents": [*result.dependents, target]})

"""Rebuild the trimmed webhook payloads in this folder from GitHub's documented examples.

Why: tests feed the bot real-shaped events, but the documented examples are large and
mostly irrelevant; we keep only the keys a bot reads, so a diff of these files shows
exactly what changed upstream in the fields we depend on.

Get the examples from the npm registry::

    cd /tmp && npm pack @octokit/webhooks-examples   # -> octokit-webhooks-examples-<ver>.tgz
    tar xzf octokit-webhooks-examples-*.tgz           # -> package/api.github.com/index.json
    python tests/webhooks/regenerate.py /tmp/package/api.github.com/index.json

Files are ``<event>.<action>.json`` (``<event>.json`` for events without actions).
Where the package has several examples for one event/action, the one keeping the most
data after trimming wins (e.g. a push that has commits).  Derived files, because the
package has no example for them, are marked in ``DERIVED`` below:

* ``issues.closed`` from ``issues.reopened`` (state/closed_at/state_reason flipped);
* ``pull_request.edited`` from ``pull_request.opened`` (plus a ``changes`` object);
* ``issue_comment.created.pull_request`` from ``issue_comment.created`` with the
  ``issue.pull_request`` link GitHub adds when the comment is on a pull request;
* ``check_run.rerequested.pull_request`` from ``check_run.rerequested`` with the
  ``pull_requests`` entry of the ``check_run.created`` example (the documented
  rerequested examples have none, which is what forks look like);
* ``workflow_run.completed.fork`` from ``workflow_run.completed``: the run of a
  ``pull_request`` workflow for a branch of a fork (``head_repository`` is the sender's
  fork, ``pull_requests`` is empty, as GitHub sends it for forks; the documented
  examples are all runs of other events);
* ``schedule`` is hand-written: scheduled workflow runs carry only the cron string.
"""

from __future__ import annotations

import argparse
import copy
import json
import sys
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent

Spec = Any  # True (keep as is) | dict[str, Spec] (keep these keys) | list[Spec] (each item)

USER: Spec = {"login": True, "id": True, "type": True}
LABEL: Spec = {"id": True, "name": True, "color": True}
REPO: Spec = {
    "id": True,
    "name": True,
    "full_name": True,
    "owner": {"login": True, "type": True},
    "default_branch": True,
    "private": True,
    "html_url": True,
}
ISSUE: Spec = {
    "number": True,
    "id": True,
    "node_id": True,
    "title": True,
    "body": True,
    "state": True,
    "state_reason": True,
    "labels": [LABEL],
    "user": USER,
    "assignee": USER,
    "assignees": [USER],
    "author_association": True,
    "html_url": True,
    "closed_at": True,
    "pull_request": {"url": True, "html_url": True},
}
COMMENT: Spec = {
    "id": True,
    "node_id": True,
    "body": True,
    "user": USER,
    "author_association": True,
    "html_url": True,
    "created_at": True,
    "updated_at": True,
}
BRANCH: Spec = {"sha": True, "ref": True, "label": True, "repo": {"full_name": True}}
PULL: Spec = {
    "number": True,
    "id": True,
    "title": True,
    "body": True,
    "state": True,
    "draft": True,
    "merged": True,
    "html_url": True,
    "user": USER,
    "labels": [LABEL],
    "author_association": True,
    "head": BRANCH,
    "base": BRANCH,
}
PUSH_COMMIT: Spec = {
    "id": True,
    "message": True,
    "timestamp": True,
    "distinct": True,
    "author": {"name": True, "email": True, "username": True},
    "added": True,
    "removed": True,
    "modified": True,
}
COMMON: Spec = {
    "action": True,
    "repository": REPO,
    "sender": USER,
    "installation": {"id": True},
    "organization": {"login": True},
    "changes": True,
}
EVENT_SPECS: dict[str, Spec] = {
    "issue_comment": {**COMMON, "issue": ISSUE, "comment": COMMENT},
    "issues": {**COMMON, "issue": ISSUE, "label": LABEL},
    "pull_request": {**COMMON, "number": True, "pull_request": PULL},
    "push": {
        **COMMON,
        "ref": True,
        "before": True,
        "after": True,
        "created": True,
        "deleted": True,
        "forced": True,
        "base_ref": True,
        "compare": True,
        "commits": [PUSH_COMMIT],
        "head_commit": PUSH_COMMIT,
        "pusher": {"name": True, "email": True},
    },
    "merge_group": {
        **COMMON,
        "merge_group": {
            "head_sha": True,
            "head_ref": True,
            "base_sha": True,
            "base_ref": True,
            "head_commit": {"id": True, "message": True},
        },
    },
    "check_run": {
        **COMMON,
        "check_run": {
            "id": True,
            "name": True,
            "head_sha": True,
            "status": True,
            "conclusion": True,
            "app": {"id": True, "slug": True},
            "check_suite": {"id": True, "head_branch": True, "head_sha": True},
            "pull_requests": [{"number": True, "head": {"sha": True, "ref": True}, "base": {"sha": True, "ref": True}}],
        },
    },
    "status": {
        **COMMON,
        "id": True,
        "sha": True,
        "state": True,
        "context": True,
        "description": True,
        "target_url": True,
        "commit": {"sha": True},
        "branches": [{"name": True, "commit": {"sha": True}}],
    },
    "workflow_dispatch": {**COMMON, "inputs": True, "ref": True, "workflow": True},
    "workflow_run": {
        **COMMON,
        "workflow": {"id": True, "name": True, "path": True},
        "workflow_run": {
            "id": True,
            "name": True,
            "event": True,
            "status": True,
            "conclusion": True,
            "head_branch": True,
            "head_sha": True,
            "run_number": True,
            "html_url": True,
            "pull_requests": [{"number": True, "head": {"sha": True, "ref": True}, "base": {"sha": True, "ref": True}}],
            "head_repository": {"id": True, "name": True, "full_name": True, "owner": {"login": True, "type": True}},
            "repository": {"id": True, "name": True, "full_name": True, "owner": {"login": True, "type": True}},
        },
    },
}

# (event, action or None) taken from the package
WANTED: tuple[tuple[str, str | None], ...] = (
    ("issue_comment", "created"),
    ("issue_comment", "edited"),
    ("pull_request", "opened"),
    ("pull_request", "synchronize"),
    ("pull_request", "reopened"),
    ("push", None),
    ("issues", "reopened"),
    ("issues", "unlabeled"),
    ("issues", "transferred"),
    ("issues", "deleted"),
    ("merge_group", "checks_requested"),
    ("check_run", "rerequested"),
    ("status", None),
    ("workflow_dispatch", None),
    ("workflow_run", "completed"),
)
DERIVED = (
    "issues.closed",
    "pull_request.edited",
    "issue_comment.created.pull_request",
    "check_run.rerequested.pull_request",
    "workflow_run.completed.fork",
    "schedule",
)


def project(value: Any, spec: Spec) -> Any:
    """Keep only what ``spec`` names; missing keys stay missing, nulls stay null."""
    if spec is True or value is None:
        return value
    if isinstance(spec, list):
        return [project(v, spec[0]) for v in value] if isinstance(value, list) else value
    if isinstance(spec, dict) and isinstance(value, dict):
        return {k: project(value[k], sub) for k, sub in spec.items() if k in value}
    return value


def _size(payload: Any) -> int:
    return len(json.dumps(payload))


def pick(examples: list[dict[str, Any]], event: str, action: str | None) -> dict[str, Any]:
    """The example for ``event``/``action`` that keeps the most data once trimmed."""
    spec = EVENT_SPECS[event]
    candidates = [project(e, spec) for e in examples if action is None or e.get("action") == action]
    if not candidates:
        raise SystemExit(f"no example for {event}.{action}")
    return max(candidates, key=_size)


def derive(payloads: dict[str, dict[str, Any]], by_name: dict[str, dict[str, Any]]) -> None:
    """Add the files the package has no example for (see module docstring)."""
    closed = copy.deepcopy(payloads["issues.reopened"])
    closed["action"] = "closed"
    closed["issue"].update(state="closed", state_reason="completed", closed_at="2019-05-15T15:20:18Z")
    payloads["issues.closed"] = closed

    edited = copy.deepcopy(payloads["pull_request.opened"])
    edited["action"] = "edited"
    edited["changes"] = {
        "title": {"from": "Old title"},
        "body": {"from": "Old description"},
    }
    payloads["pull_request.edited"] = edited

    on_pr = copy.deepcopy(payloads["issue_comment.created"])
    issue = on_pr["issue"]
    repo_api = f"https://api.github.com/repos/{on_pr['repository']['full_name']}"
    issue["pull_request"] = {
        "url": f"{repo_api}/pulls/{issue['number']}",
        "html_url": f"{on_pr['repository']['html_url']}/pull/{issue['number']}",
    }
    payloads["issue_comment.created.pull_request"] = on_pr

    rerun = copy.deepcopy(payloads["check_run.rerequested"])
    created = pick(by_name["check_run"]["examples"], "check_run", "created")
    prs = created["check_run"]["pull_requests"]
    rerun["check_run"]["pull_requests"] = prs
    rerun["check_run"]["head_sha"] = prs[0]["head"]["sha"]
    rerun["check_run"]["check_suite"].update(head_sha=prs[0]["head"]["sha"], head_branch=prs[0]["head"]["ref"])
    payloads["check_run.rerequested.pull_request"] = rerun

    fork = copy.deepcopy(payloads["workflow_run.completed"])
    run = fork["workflow_run"]
    base = run["repository"]
    head_owner = {**fork["sender"], "type": "User"}
    run.update(
        event="pull_request",
        head_branch="fix-typo",
        head_sha=payloads["pull_request.opened"]["pull_request"]["head"]["sha"],
        pull_requests=[],
        head_repository={**base, "id": base["id"] + 1, "full_name": f"{head_owner['login']}/{base['name']}"},
    )
    run["head_repository"]["owner"] = {"login": head_owner["login"], "type": head_owner["type"]}
    payloads["workflow_run.completed.fork"] = fork

    payloads["schedule"] = {"schedule": "0 3 * * *"}


def build(index: list[dict[str, Any]]) -> dict[str, dict[str, Any]]:
    """File stem -> trimmed payload."""
    by_name = {e["name"]: e for e in index}
    out: dict[str, dict[str, Any]] = {}
    for event, action in WANTED:
        stem = f"{event}.{action}" if action else event
        out[stem] = pick(by_name[event]["examples"], event, action)
    derive(out, by_name)
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("index_json", type=Path, help="path to api.github.com/index.json of the npm package")
    parser.add_argument("-o", "--output-dir", type=Path, default=HERE)
    args = parser.parse_args(argv)
    index = json.loads(args.index_json.read_text(encoding="utf-8"))
    for stem, payload in sorted(build(index).items()):
        path = args.output_dir / f"{stem}.json"
        path.write_text(json.dumps(payload, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
        print(f"wrote {path.name}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

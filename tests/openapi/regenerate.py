"""Regenerate ``github-trimmed.json`` from GitHub's official OpenAPI description.

Why: the fake GitHub in ``tests/support/fakegithub`` validates request and response bodies
against the real REST contract.  The full description is ~13 MB, so we keep only
the operations the fake serves plus the components they reference.

How to get the full description (npm registry, no GitHub access needed)::

    cd /tmp && npm pack @octokit/openapi          # -> octokit-openapi-<ver>.tgz
    tar xzf octokit-openapi-*.tgz                 # -> package/generated/api.github.com.json
    python tests/openapi/regenerate.py /tmp/package/generated/api.github.com.json

(or ``npm install --prefix /tmp/oa @octokit/openapi`` and use
``/tmp/oa/node_modules/@octokit/openapi/generated/api.github.com.json``).

Use the non-``deref`` file: ``$ref``s are kept and resolved transitively here.
``examples`` are dropped (the fake never serves them and they are most of the bytes).
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
OUTPUT = HERE / "github-trimmed.json"

# The operations the fake serves.  Keep in sync with tests/support/fakegithub/routes.py.
OPERATIONS: tuple[str, ...] = (
    # labels
    "issues/create-label",
    "issues/get-label",
    "issues/update-label",
    "issues/delete-label",
    "issues/list-labels-for-repo",
    # issues
    "issues/create",
    "issues/get",
    "issues/update",
    "issues/list-for-repo",
    "issues/list-labels-on-issue",
    "issues/add-labels",
    "issues/set-labels",
    "issues/remove-label",
    "issues/remove-all-labels",
    "issues/add-assignees",
    "issues/remove-assignees",
    # comments
    "issues/list-comments",
    "issues/create-comment",
    "issues/get-comment",
    "issues/update-comment",
    "issues/delete-comment",
    # issue dependencies
    "issues/list-dependencies-blocked-by",
    "issues/add-blocked-by-dependency",
    "issues/remove-dependency-blocked-by",
    "issues/list-dependencies-blocking",
    # pulls
    "pulls/get",
    "pulls/list",
    "pulls/list-commits",
    # statuses
    "repos/create-commit-status",
    "repos/list-commit-statuses-for-ref",
    "repos/get-combined-status-for-ref",
    "repos/get-commit",  # PyGithub's Commit.create_status completes the commit first
    "repos/list-pull-requests-associated-with-commit",  # workflow_run: the pull request of a head commit
    "repos/list-branches-for-head-commit",  # the per-commit gate: the branches at a commit
    # repository
    "repos/get",
    "repos/get-collaborator-permission-level",
    "repos/get-content",
    "git/get-tree",  # parkbot serve reads a pushed commit's result files through the API
    # teams
    "orgs/get",  # PyGithub's Github.get_organization is eager
    "teams/get-by-name",  # PyGithub's Organization.get_team_by_slug completes the team
    "teams/get-membership-for-user-in-org",
    "teams/list-members-in-org",
    "teams/list-child-in-org",
    # users / rate limit
    "users/get-authenticated",
    "users/get-by-username",
    "rate-limit/get",
    # ghcost
    "reactions/create-for-issue-comment",  # 👀 / 👍 / 😕 on the comment a command came in
    "reactions/list-for-issue-comment",  # the reconcile: command comments parkbot never took up
    # ghtrust: the gate as a check run (only GitHub Apps write them)
    "checks/create",
    "checks/update",
    "checks/get",
    "checks/list-for-ref",
    # parkbot serve: the GitHub App (its identity, installations, tokens, webhook deliveries)
    "apps/get-authenticated",
    "apps/list-installations",
    "apps/create-installation-access-token",
    "apps/get-repo-installation",
    "apps/list-repos-accessible-to-installation",
    "apps/list-webhook-deliveries",
    "apps/redeliver-webhook-delivery",
    # parkbot doctor: what protects the default branch, and the workflow token's default permissions
    "repos/get-branch-protection",
    "repos/get-branch-rules",
    "actions/get-github-actions-default-workflow-permissions-repository",
)

HTTP_METHODS = {"get", "put", "post", "delete", "patch", "head", "options", "trace"}


def _strip_examples(node: Any, *, names_map: bool = False) -> Any:
    """Drop ``example``/``examples`` payloads: large and irrelevant to validation.

    ``names_map`` marks a map whose keys are user names (``properties``, ``schemas``...),
    where a key called ``example`` is a real property and must be kept.
    """
    if isinstance(node, dict):
        out: dict[str, Any] = {}
        for k, v in node.items():
            if not names_map and k in ("example", "examples"):
                continue
            out[k] = _strip_examples(v, names_map=k in _NAME_MAPS and not names_map)
        return out
    if isinstance(node, list):
        return [_strip_examples(v) for v in node]
    return node


_NAME_MAPS = {"properties", "patternProperties", "schemas", "responses", "parameters", "headers", "content"}


def _refs(node: Any) -> set[str]:
    """All ``$ref`` targets inside ``node``."""
    found: set[str] = set()
    stack = [node]
    while stack:
        cur = stack.pop()
        if isinstance(cur, dict):
            ref = cur.get("$ref")
            if isinstance(ref, str):
                found.add(ref)
            stack.extend(cur.values())
        elif isinstance(cur, list):
            stack.extend(cur)
    return found


def _resolve_pointer(doc: dict[str, Any], ref: str) -> Any:
    if not ref.startswith("#/"):
        raise ValueError(f"external $ref not supported: {ref}")
    cur: Any = doc
    for part in ref[2:].split("/"):
        cur = cur[part.replace("~1", "/").replace("~0", "~")]
    return cur


def trim(full: dict[str, Any], operations: tuple[str, ...] = OPERATIONS) -> dict[str, Any]:
    """Return a new spec with only ``operations`` and the components they reach."""
    wanted = set(operations)
    paths: dict[str, Any] = {}
    for path, item in full["paths"].items():
        kept = {
            m: _strip_examples(op) for m, op in item.items() if m in HTTP_METHODS and op.get("operationId") in wanted
        }
        if not kept:
            continue
        if "parameters" in item:
            kept["parameters"] = item["parameters"]
        paths[path] = kept
        wanted -= {op["operationId"] for m, op in kept.items() if m in HTTP_METHODS}
    if wanted:
        raise SystemExit(f"operations missing from the description: {sorted(wanted)}")

    components: dict[str, dict[str, Any]] = {}
    pending = _refs(paths)
    seen: set[str] = set()
    while pending:
        ref = pending.pop()
        if ref in seen:
            continue
        seen.add(ref)
        parts = ref[2:].split("/")
        if parts[0] != "components" or len(parts) != 3:
            raise SystemExit(f"unexpected $ref shape: {ref}")
        _, section, name = parts
        if section == "examples":
            continue  # stripped
        target = _strip_examples(_resolve_pointer(full, ref))
        components.setdefault(section, {})[name] = target
        pending |= _refs(target) - seen

    return {
        "openapi": full["openapi"],
        "info": {
            **full["info"],
            "x-trimmed": "Subset for parkbot's fake GitHub; see tests/openapi/regenerate.py",
        },
        "servers": full.get("servers", []),
        "paths": dict(sorted(paths.items())),
        "components": {s: dict(sorted(v.items())) for s, v in sorted(components.items())},
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("full_json", type=Path, help="path to generated/api.github.com.json")
    parser.add_argument("-o", "--output", type=Path, default=OUTPUT)
    args = parser.parse_args(argv)
    full = json.loads(args.full_json.read_text(encoding="utf-8"))
    trimmed = trim(full)
    args.output.write_text(json.dumps(trimmed, indent=1, sort_keys=False) + "\n", encoding="utf-8")
    n_ops = sum(1 for item in trimmed["paths"].values() for m in item if m in HTTP_METHODS)
    n_schemas = len(trimmed["components"].get("schemas", {}))
    print(f"wrote {args.output} ({n_ops} operations, {n_schemas} schemas)", file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

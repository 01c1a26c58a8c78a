"""The fake's GraphQL endpoint: just the ``pinIssue`` / ``unpinIssue`` mutations.

Why a separate module: GitHub's REST OpenAPI description (which the rest of the fake is checked
against) does not describe GraphQL, and parkbot needs exactly one mutation from it, because issues
can be pinned only through GraphQL. The endpoint lives where GitHub puts it for the REST root the
fake serves: ``https://api.github.com/graphql``, or ``https://<host>/api/graphql`` for a GitHub
Enterprise Server root ``https://<host>/api/v3`` (``/v3`` dropped, as PyGithub's ``graphql_url``).

Rules kept, as GitHub applies them:

* answers are ``200`` with ``data`` or with ``errors`` (GraphQL reports failures in the body);
  a missing or bad token is ``401``, a body that is not a query is ``400``;
* the issue is named by its global node id (``node_id`` in REST payloads); an unknown id is a
  ``NOT_FOUND`` error; a pull request cannot be pinned;
* a repository pins at most three issues (``UNPROCESSABLE``); pinning a pinned issue is a no-op;
* GraphQL has its own rate limit, so a request here does not consume the REST (core) one.

State: ``fake.pinned_issues`` (issue numbers, in pinning order). Requests are logged like REST
ones, with the operation name ``graphql/<mutation>``, so ``fake.count(operation="graphql/pinIssue")``
and ``fake.count("POST", "/graphql")`` (``/api/graphql`` on GHES) work.
"""

from __future__ import annotations

import json
import re
from typing import TYPE_CHECKING, Any

from . import payloads as P

if TYPE_CHECKING:
    from .server import FakeGitHub

MAX_PINNED = 3
_MUTATION = re.compile(r"\bmutation\b[^{]*\{\s*(?P<name>\w+)\s*\(")
SERVED = ("pinIssue", "unpinIssue")


def graphql_path(fake: FakeGitHub) -> str:
    """The URL path of the GraphQL endpoint for the fake's REST root (``/graphql``, ``/api/graphql``)."""
    prefix = fake._prefix.rstrip("/")
    if prefix.endswith("/v3"):
        prefix = prefix[: -len("/v3")]
    return f"{prefix}/graphql"


def is_graphql(fake: FakeGitHub, method: str, path: str) -> bool:
    return method == "POST" and path.rstrip("/") == graphql_path(fake)


def serve(fake: FakeGitHub, path: str, body: Any, headers: dict[str, str]) -> tuple[int, dict[str, str], str]:
    """Answer one GraphQL request (the server has already applied injected faults)."""
    status, reply, operation = _answer(fake, body, headers)
    out_headers = {
        "content-type": "application/json; charset=utf-8",
        "x-ratelimit-resource": "graphql",
        "x-ratelimit-limit": "5000",
        "x-ratelimit-remaining": "4999",
        "x-ratelimit-reset": str(fake.rate_reset),
    }
    fake._log("POST", path, {}, body, status, operation)
    return status, out_headers, json.dumps(reply)


def _error(message: str, kind: str | None = None, path: list[str] | None = None) -> dict[str, Any]:
    error: dict[str, Any] = {"message": message}
    if kind:
        error["type"] = kind
    if path:
        error["path"] = path
    return {"errors": [error]}


def _answer(fake: FakeGitHub, body: Any, headers: dict[str, str]) -> tuple[int, dict[str, Any], str | None]:
    auth = headers.get("authorization")
    if not auth:
        return 401, {"message": "This endpoint requires you to be authenticated.", "documentation_url": ""}, None
    token = auth.split(" ", 1)[-1].strip()
    fake.tokens_seen.append(token)
    if fake.token is not None and token != fake.token:
        return 401, {"message": "Bad credentials", "documentation_url": ""}, None
    if not isinstance(body, dict) or not isinstance(body.get("query"), str):
        return 400, {"message": "Problems parsing JSON", "documentation_url": ""}, None
    match = _MUTATION.search(body["query"])
    if match is None or match.group("name") not in SERVED:
        return 200, _error("the fake serves only the pinIssue and unpinIssue mutations"), "graphql"
    name = match.group("name")
    operation = f"graphql/{name}"
    variables = body.get("variables") or {}
    issue_id = ((variables.get("input") or {}) if isinstance(variables, dict) else {}).get("issueId")
    issue = next((i for i in fake.issues.values() if P.node_id("Issue", i.id) == issue_id), None)
    if issue is None:
        return (
            200,
            _error(f"Could not resolve to a node with the global id of '{issue_id}'", "NOT_FOUND", [name]),
            operation,
        )
    if name == "pinIssue":
        if issue.number not in fake.pinned_issues:
            if len(fake.pinned_issues) >= MAX_PINNED:
                message = f"Repository {fake.full_name} already has {MAX_PINNED} pinned issues"
                return 200, _error(message, "UNPROCESSABLE", [name]), operation
            fake.pinned_issues.append(issue.number)
    elif issue.number in fake.pinned_issues:
        fake.pinned_issues.remove(issue.number)
    pinned = issue.number in fake.pinned_issues
    return 200, {"data": {name: {"issue": {"number": issue.number, "isPinned": pinned}}}}, operation

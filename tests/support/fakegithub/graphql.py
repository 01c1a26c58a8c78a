"""The fake's GraphQL endpoint: GitHub's published schema, executed against the fake's state.

Why graphql-core: a hand-written matcher for a few query strings checks nothing. Here every request
is parsed and validated against GitHub's own schema (``tests/openapi/github-schema.graphql``, trimmed
from ``@octokit/graphql-schema`` by ``tests/openapi/regenerate_graphql.py``) and executed by a real
GraphQL engine: a misspelt field, a wrong argument type or a fragment on the wrong type fails the
test as it would fail on GitHub, and the answer has exactly the shape the query asked for.

The endpoint lives where GitHub puts it for the REST root the fake serves:
``https://api.github.com/graphql``, or ``https://<host>/api/graphql`` for a GitHub Enterprise Server
root ``https://<host>/api/v3`` (``/v3`` dropped, as PyGithub's ``graphql_url``).

Rules kept, as GitHub applies them:

* answers are ``200`` with ``data`` and/or ``errors`` (GraphQL reports failures in the body, with a
  ``type`` such as ``NOT_FOUND``); a missing or bad token is ``401``, a body that is not a query ``400``;
  a query GitHub's schema refuses is also an OpenAPI-style violation of the test (``fake.openapi_violations``);
* connections need ``first`` or ``last``, at most 100 (``MISSING_PAGINATION_BOUNDARIES`` otherwise);
* ``issues(labels:)`` matches issues carrying *any* of the labels (GraphQL's filter is an OR, unlike
  REST's ``labels=a,b``); pull requests are never issues;
* an actor's ``login`` is a Bot's slug without ``[bot]`` (``author { login }`` of ``parkbot[bot]`` is
  ``parkbot``, ``__typename`` ``Bot``), while ``viewer { login }`` is the token's full login;
* ``lastEditedAt``/``editor`` say who made the last body edit; ``userContentEdits`` lists every
  version, newest first, the original one included once the text was edited (``diff`` is the text
  of that version, null once someone deleted it from the history);
* ``pinIssue``: the issue is named by its global node id; a repository pins at most three issues
  (``UNPROCESSABLE``); pinning a pinned issue is a no-op;
* GraphQL has its own rate limit, so a request here does not consume the REST (core) one.

Requests are logged like REST ones, with the operation ``graphql/<operation name>`` (for mutations the
mutation's field, ``graphql/pinIssue``), so ``fake.count(operation="graphql/ParkbotIssue")`` and
``fake.count("POST", "/graphql")`` (``/api/graphql`` on GHES) work.
"""

from __future__ import annotations

import base64
import json
from collections.abc import Callable, Iterable
from functools import cache, lru_cache
from pathlib import Path
from typing import TYPE_CHECKING, Any

from graphql import (
    DocumentNode,
    ExecutionResult,
    GraphQLError,
    GraphQLSchema,
    OperationDefinitionNode,
    build_schema,
    execute,
    parse,
    validate,
)

from . import payloads as P
from .state import Comment, Edit, Issue, iso

if TYPE_CHECKING:
    from .server import FakeGitHub

SCHEMA_PATH = Path(__file__).resolve().parents[2] / "openapi" / "github-schema.graphql"
MAX_PINNED = 3
#: The most ids ``nodes(ids:)`` takes at once (GitHub's limit, like a connection's page of 100).
MAX_NODE_IDS = 100
MAX_PAGE = 100
#: The mutations the fake serves (``fake.writes()`` lists them; queries change nothing).
MUTATIONS = frozenset({"pinIssue", "unpinIssue"})


@cache
def schema() -> GraphQLSchema:
    """GitHub's schema as trimmed for the fake (parsed once per process)."""
    return build_schema(SCHEMA_PATH.read_text(encoding="utf-8"))


@lru_cache(maxsize=256)
def checked(query: str) -> tuple[DocumentNode, tuple[GraphQLError, ...]]:
    """A query parsed and validated against GitHub's schema, once per distinct text (parkbot's are constants)."""
    document = parse(query)
    return document, tuple(validate(schema(), document))


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
    status, reply, operation, violation = _answer(fake, body, headers)
    out_headers = {
        "content-type": "application/json; charset=utf-8",
        "x-ratelimit-resource": "graphql",
        "x-ratelimit-limit": "5000",
        "x-ratelimit-remaining": "4999",
        "x-ratelimit-reset": str(fake.rate_reset),
    }
    fake._log("POST", path, {}, body, status, operation)
    if violation is not None and fake.strict:
        fake._violation(violation)
    return status, out_headers, json.dumps(reply)


class FakeError(Exception):
    """An error GitHub reports in the ``errors`` of a 200 answer, with its ``type``."""

    def __init__(self, message: str, kind: str) -> None:
        super().__init__(message)
        self.kind = kind


def _format(error: GraphQLError) -> dict[str, Any]:
    out: dict[str, Any] = {"message": error.message}
    original = error.original_error
    if isinstance(original, FakeError):
        out["type"] = original.kind
    if error.path:
        out["path"] = list(error.path)
    if error.locations:
        out["locations"] = [{"line": loc.line, "column": loc.column} for loc in error.locations]
    return out


def _operation_name(document: Any, body: dict[str, Any]) -> str:
    operations = [d for d in document.definitions if isinstance(d, OperationDefinitionNode)]
    wanted = body.get("operationName")
    op = next((o for o in operations if o.name and o.name.value == wanted), operations[0] if operations else None)
    if op is None:
        return "graphql"
    if op.operation.value == "mutation" or op.name is None:
        first = op.selection_set.selections[0]
        return f"graphql/{getattr(getattr(first, 'name', None), 'value', 'anonymous')}"
    return f"graphql/{op.name.value}"


def operation_of(body: Any) -> str:
    """The logged operation of a request body, ``graphql`` when it holds no parsable query."""
    if not isinstance(body, dict) or not isinstance(body.get("query"), str):
        return "graphql"
    try:
        return _operation_name(checked(body["query"])[0], body)
    except GraphQLError:
        return "graphql"


def _answer(fake: FakeGitHub, body: Any, headers: dict[str, str]) -> tuple[int, dict[str, Any], str | None, str | None]:
    auth = headers.get("authorization")
    if not auth:
        return 401, {"message": "This endpoint requires you to be authenticated.", "documentation_url": ""}, None, None
    if not fake.authenticate(auth.split(" ", 1)[-1].strip()):
        return 401, {"message": "Bad credentials", "documentation_url": ""}, None, None
    if not isinstance(body, dict) or not isinstance(body.get("query"), str):
        return 400, {"message": "Problems parsing JSON", "documentation_url": ""}, None, None
    try:
        document, problems = checked(body["query"])
    except GraphQLError as exc:
        return 200, {"errors": [_format(exc)]}, "graphql", f"GraphQL: not a query GitHub can parse: {exc.message}"
    operation = _operation_name(document, body)
    if problems:
        text = "; ".join(p.message for p in problems)
        return (
            200,
            {"errors": [_format(p) for p in problems]},
            operation,
            f"{operation}: refused by GitHub's schema: {text}",
        )
    variables = body.get("variables") or {}
    result = execute(
        schema(),
        document,
        root_value=Root(fake),
        variable_values=variables if isinstance(variables, dict) else {},
        operation_name=body.get("operationName"),
    )
    assert isinstance(result, ExecutionResult)  # no resolver of the fake is async
    reply: dict[str, Any] = {}
    if result.errors:
        unexpected = [e for e in result.errors if not isinstance(e.original_error, FakeError)]
        if unexpected:  # a resolver of the fake failed: a bug in the fake, not a GitHub answer
            raise unexpected[0]
        reply["errors"] = [_format(e) for e in result.errors]
    reply["data"] = result.data
    return 200, reply, operation, None


# --- the object graph ---------------------------------------------------------------------------


def _cursor(index: int) -> str:
    return base64.b64encode(f"cursor:v2:{index}".encode()).decode()


def _index(cursor: str | None) -> int:
    if cursor is None:
        return -1
    try:
        return int(base64.b64decode(cursor).decode().rsplit(":", 1)[-1])
    except (ValueError, UnicodeDecodeError):
        raise FakeError(f"`{cursor}` does not appear to be a valid cursor.", "INVALID_CURSOR_ARGUMENTS") from None


def connection(items: list[Any], name: str, first: int | None = None, after: str | None = None, **_: Any) -> Any:
    """One page of a connection, with GitHub's pagination rules (``first`` required, at most 100)."""
    if first is None:
        raise FakeError(
            f"You must provide a `first` or `last` value to properly paginate the `{name}` connection.",
            "MISSING_PAGINATION_BOUNDARIES",
        )
    if first > MAX_PAGE:
        raise FakeError(
            f"Requesting {first} records on the `{name}` connection exceeds the `first` limit of 100 records.",
            "EXCESSIVE_PAGINATION",
        )
    start = _index(after) + 1
    page = items[start : start + first]
    end = start + len(page) - 1
    info = {
        "hasNextPage": start + first < len(items),
        "hasPreviousPage": start > 0,
        "endCursor": _cursor(end) if page else None,
        "startCursor": _cursor(start) if page else None,
    }
    return {"nodes": page, "pageInfo": info, "totalCount": len(items)}


def paged(items: Callable[[], list[Any]], name: str) -> Callable[..., Any]:
    """A connection field: ``items`` is computed when the field is asked for."""
    return lambda _info, **args: connection(items(), name, **args)


def actor(fake: FakeGitHub, login: str | None) -> dict[str, Any] | None:
    """An ``Actor`` as GraphQL shows it: a Bot's login is its slug, without ``[bot]``."""
    if login is None:
        return None
    user = fake.add_user(login)
    kind = user.type if user.type in ("Bot", "User", "Organization") else "User"
    shown = user.login.removesuffix("[bot]") if kind == "Bot" else user.login
    return {"__typename": kind, "login": shown, "id": P.node_id(kind, user.id)}


def _edits(fake: FakeGitHub, history: list[Edit]) -> Callable[..., Any]:
    def nodes() -> list[Any]:
        return [
            {
                "__typename": "UserContentEdit",
                "id": P.node_id("UserContentEdit", edit.id),
                "editedAt": iso(edit.edited_at),
                "deletedAt": iso(edit.deleted_at),
                "diff": edit.body,
                "editor": actor(fake, edit.editor),
            }
            for edit in reversed(history)  # newest first, as GitHub lists them
        ]

    return paged(nodes, "userContentEdits")


def _edited(fake: FakeGitHub, history: list[Edit]) -> dict[str, Any]:
    last = history[-1] if len(history) > 1 else None
    return {
        "lastEditedAt": iso(last.edited_at) if last else None,
        "editor": actor(fake, last.editor) if last else None,
        "userContentEdits": _edits(fake, history),
    }


def comment_node(fake: FakeGitHub, c: Comment) -> dict[str, Any]:
    return {
        "__typename": "IssueComment",
        "id": P.node_id("IssueComment", c.id),
        "fullDatabaseId": str(c.id),
        "url": f"{fake.repo_web}/issues/{c.issue_number}#issuecomment-{c.id}",
        "body": c.body,
        "createdAt": iso(c.created_at),
        "author": actor(fake, c.user),
        **_edited(fake, c.edits),
    }


def _comments(fake: FakeGitHub, number: int) -> Callable[..., Any]:
    def nodes() -> list[Any]:
        found = sorted((c for c in fake.comments.values() if c.issue_number == number), key=lambda c: c.id)
        return [comment_node(fake, c) for c in found]

    return paged(nodes, "comments")


def issue_node(fake: FakeGitHub, iss: Issue) -> dict[str, Any]:
    if iss.pull is not None:
        return pull_node(fake, iss)
    return {
        "__typename": "Issue",
        "id": P.node_id("Issue", iss.id),
        "fullDatabaseId": str(iss.id),
        "number": iss.number,
        "title": iss.title,
        "body": iss.body or "",
        "url": f"{fake.repo_web}/issues/{iss.number}",
        "state": iss.state.upper(),
        "createdAt": iso(iss.created_at),
        "author": actor(fake, iss.user),
        "labels": paged(lambda: [{"name": n, "id": P.node_id("Label", n)} for n in iss.labels], "labels"),
        "assignees": paged(lambda: [actor(fake, a) for a in iss.assignees], "assignees"),
        "comments": _comments(fake, iss.number),
        "isPinned": iss.number in fake.pinned_issues,
        **_edited(fake, iss.edits),
    }


def pull_node(fake: FakeGitHub, iss: Issue) -> dict[str, Any]:
    assert iss.pull is not None
    pull = iss.pull

    def commits() -> list[Any]:
        return [
            {
                "id": P.node_id("PullRequestCommit", sha),
                "commit": {"id": P.node_id("Commit", sha), "oid": sha, "message": fake.commits[sha].message},
            }
            for sha in pull.commits[:250]  # GitHub lists at most 250 commits of a pull request
        ]

    return {
        "__typename": "PullRequest",
        "id": P.node_id("PullRequest", iss.id),
        "number": iss.number,
        "commits": paged(commits, "commits"),
        "comments": _comments(fake, iss.number),
    }


def _labelled(iss: Issue, labels: Iterable[str] | None) -> bool:
    wanted = {name.lower() for name in labels or ()}
    return not wanted or bool(wanted & {n.lower() for n in iss.labels})


def _state_of(iss: Issue) -> str:
    if iss.pull is not None and iss.pull.merged:
        return "MERGED"
    return iss.state.upper()


class Repository:
    """``Repository``: the fields parkbot reads."""

    def __init__(self, fake: FakeGitHub) -> None:
        self.fake = fake
        self.id = P.node_id("Repository", fake.repo_id)

    def _number(self, number: int, kind: str) -> Issue:
        iss = self.fake.issues.get(number)
        if iss is None or (kind == "PullRequest" and iss.pull is None):
            what = "a PullRequest" if kind == "PullRequest" else "an issue or pull request"
            raise FakeError(f"Could not resolve to {what} with the number of {number}.", "NOT_FOUND")
        return iss

    def issueOrPullRequest(self, _info: Any, number: int) -> Any:
        return issue_node(self.fake, self._number(number, "IssueOrPullRequest"))

    def pullRequest(self, _info: Any, number: int) -> Any:
        return pull_node(self.fake, self._number(number, "PullRequest"))

    def issues(self, _info: Any, labels: list[str] | None = None, states: list[str] | None = None, **args: Any) -> Any:
        order = args.pop("orderBy", None) or {}
        args.pop("filterBy", None)
        found = [
            i
            for i in self.fake.issues.values()
            if i.pull is None and _labelled(i, labels) and (not states or _state_of(i) in states)
        ]
        key = {
            "UPDATED_AT": lambda i: (i.updated_at, i.number),
            "COMMENTS": lambda i: (self.fake.comment_count(i.number), i.number),
        }.get(order.get("field", "CREATED_AT"), lambda i: (i.created_at, i.number))
        found.sort(key=key, reverse=order.get("direction", "ASC") == "DESC")
        return connection([issue_node(self.fake, i) for i in found], "issues", **args)

    def pullRequests(
        self, _info: Any, labels: list[str] | None = None, states: list[str] | None = None, **args: Any
    ) -> Any:
        for ignored in ("orderBy", "headRefName", "baseRefName"):
            args.pop(ignored, None)
        found = sorted(
            (
                i
                for i in self.fake.issues.values()
                if i.pull is not None and _labelled(i, labels) and (not states or _state_of(i) in states)
            ),
            key=lambda i: i.number,
        )
        return connection([pull_node(self.fake, i) for i in found], "pullRequests", **args)


class Root:
    """``Query`` and ``Mutation``."""

    def __init__(self, fake: FakeGitHub) -> None:
        self.fake = fake
        self.id = "Query"

    def viewer(self, _info: Any) -> Any:
        user = self.fake.add_user(self.fake.actor)
        return {"__typename": "User", "login": user.login, "id": P.node_id("User", user.id)}

    def repository(self, _info: Any, owner: str, name: str, followRenames: bool = True) -> Any:
        fake = self.fake
        if (owner.lower(), name.lower()) != (fake.owner.lower(), fake.repo.lower()):
            raise FakeError(f"Could not resolve to a Repository with the name '{owner}/{name}'.", "NOT_FOUND")
        return Repository(fake)

    def _by_node_id(self, node_id: str) -> Any:
        fake = self.fake
        for iss in fake.issues.values():
            if P.node_id("Issue", iss.id) == node_id or P.node_id("PullRequest", iss.id) == node_id:
                return issue_node(fake, iss)
        for c in fake.comments.values():
            if P.node_id("IssueComment", c.id) == node_id:
                return comment_node(fake, c)
        raise FakeError(f"Could not resolve to a node with the global id of '{node_id}'", "NOT_FOUND")

    def node(self, _info: Any, id: str) -> Any:
        return self._by_node_id(id)

    def nodes(self, _info: Any, ids: list[str]) -> list[Any]:
        """Each id's node; an unknown one is null with its own error (an exception value, for graphql-core)."""
        if len(ids) > MAX_NODE_IDS:
            raise FakeError(f"You may not request more than {MAX_NODE_IDS} nodes at once", "ARGUMENT_LIMIT")
        out: list[Any] = []
        for node_id in ids:
            try:
                out.append(self._by_node_id(node_id))
            except FakeError as exc:
                out.append(exc)
        return out

    def _pin(self, name: str, input: dict[str, Any]) -> Any:
        fake = self.fake
        issue_id = input.get("issueId")
        issue = next((i for i in fake.issues.values() if P.node_id("Issue", i.id) == issue_id), None)
        if issue is None:
            raise FakeError(f"Could not resolve to a node with the global id of '{issue_id}'", "NOT_FOUND")
        if name == "pinIssue":
            if issue.number not in fake.pinned_issues:
                if len(fake.pinned_issues) >= MAX_PINNED:
                    raise FakeError(
                        f"Repository {fake.full_name} already has {MAX_PINNED} pinned issues", "UNPROCESSABLE"
                    )
                fake.pinned_issues.append(issue.number)
        elif issue.number in fake.pinned_issues:
            fake.pinned_issues.remove(issue.number)
        return {"issue": issue_node(fake, issue)}

    def pinIssue(self, _info: Any, input: dict[str, Any]) -> Any:
        return self._pin("pinIssue", input)

    def unpinIssue(self, _info: Any, input: dict[str, Any]) -> Any:
        return self._pin("unpinIssue", input)

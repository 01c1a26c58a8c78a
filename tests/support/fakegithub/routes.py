"""Request handlers of the fake, one per OpenAPI operationId.

Why this shape: in strict mode the request body has already been checked against the
OpenAPI schema when a handler runs (a shape error is a bug in the caller and fails the
test).  Each handler then applies GitHub's own rules that the schema cannot express
(length limits, duplicates, unknown commits...), raising ``ApiError`` -- answered as
GitHub would, 422/404 -- *before* it mutates anything, so a rejected request never
changes state.  With ``strict=False`` shape errors also come back as GitHub's 422.
"""

from __future__ import annotations

import re
import urllib.parse
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from . import payloads as P
from .state import CheckRun, Comment, Issue, Reaction, Status, Team, parse_iso

if TYPE_CHECKING:
    from .server import FakeGitHub

Handler = Callable[["FakeGitHub", "Ctx"], "Reply"]
ROUTES: dict[str, Handler] = {}

MAX_BODY = 65536
MAX_TITLE = 256
MAX_LABEL_NAME = 50
MAX_LABEL_DESCRIPTION = 100
#: Labels one issue or pull request may carry: GitHub refuses to add more (so ``labels(first: 100)`` is all).
MAX_ISSUE_LABELS = 100
MAX_STATUS_DESCRIPTION = 140
STATUS_STATES = ("error", "failure", "pending", "success")
_COLOR = re.compile(r"#?[0-9a-fA-F]{6}")


@dataclass
class Reply:
    """What a handler answers: status, JSON body (None for empty), extra headers."""

    status: int
    body: Any = None
    headers: dict[str, str] = field(default_factory=dict)


class ApiError(Exception):
    """An error response GitHub would send; raising it leaves state untouched."""

    def __init__(
        self,
        status: int,
        message: str,
        errors: list[dict[str, Any]] | None = None,
        headers: dict[str, str] | None = None,
    ) -> None:
        super().__init__(f"{status} {message}")
        self.status = status
        self.message = message
        self.errors = errors
        self.headers = headers or {}

    @classmethod
    def not_found(cls) -> ApiError:
        """GitHub's uniform 404 (also used for things you may not see)."""
        return cls(404, "Not Found")

    @classmethod
    def invalid(cls, resource: str, field_name: str, code: str, message: str | None = None) -> ApiError:
        """A 422 ``Validation Failed`` with one entry in ``errors``."""
        err: dict[str, Any] = {"resource": resource, "code": code, "field": field_name}
        if message is not None:
            err["message"] = message
        return cls(422, "Validation Failed", [err])

    @classmethod
    def too_long(cls, resource: str, field_name: str, limit: int) -> ApiError:
        """GitHub's wording for over-long fields."""
        msg = f"{field_name} is too long (maximum is {limit} characters)"
        return cls.invalid(resource, field_name, "custom", msg)


@dataclass
class Ctx:
    """One parsed request as handlers see it."""

    fake: FakeGitHub
    method: str
    path: str  # API path without the base prefix, still percent-encoded
    operation_id: str
    params: dict[str, str]
    query: dict[str, str]
    query_items: list[tuple[str, str]]
    body: Any
    headers: dict[str, str]
    validated_done: bool = False

    def validated(self) -> None:
        """Run the strict OpenAPI request check once (the server calls it before handlers)."""
        if not self.validated_done:
            self.validated_done = True
            self.fake.check_request(self.operation_id, self.body)

    def obj(self) -> dict[str, Any]:
        """The JSON body as an object; GitHub answers 400 to anything else."""
        if self.body is None:
            return {}
        if not isinstance(self.body, dict):
            raise ApiError(400, "Problems parsing JSON")
        return self.body

    def number(self, name: str = "issue_number") -> int:
        """An integer path parameter; non-numbers are 404 like on GitHub."""
        try:
            return int(self.params[name])
        except ValueError:
            raise ApiError.not_found() from None

    def page(self, items: list[Any]) -> Reply:
        """Paginate ``items`` (already rendered) with GitHub's ``Link`` header."""
        return self.fake.paginate(self, items)


def route(operation_id: str) -> Callable[[Handler], Handler]:
    """Register a handler for an operationId of the trimmed description."""

    def deco(fn: Handler) -> Handler:
        ROUTES[operation_id] = fn
        return fn

    return deco


# --------------------------------------------------------------------------- helpers


def _str(body: dict[str, Any], key: str, resource: str, *, allow_none: bool = True) -> str | None:
    value = body.get(key)
    if value is None and allow_none:
        return None
    if not isinstance(value, str):
        raise ApiError.invalid(resource, key, "invalid")
    return value


def _capped(names: list[str]) -> list[str]:
    """An issue's labels, refused (422) beyond the number GitHub lets one issue carry."""
    if len({n.lower() for n in names}) > MAX_ISSUE_LABELS:
        raise ApiError.invalid("Issue", "labels", "custom", f"an issue may have at most {MAX_ISSUE_LABELS} labels")
    return names


def _label_names(raw: Any) -> list[str]:
    """Label lists as GitHub accepts them: names, ``{"name": ...}`` objects or one string."""
    if raw is None:
        return []
    if isinstance(raw, str):
        raw = [raw]
    if isinstance(raw, dict):
        raw = raw.get("labels", [])
        if isinstance(raw, str):
            raw = [raw]
    if not isinstance(raw, list):
        raise ApiError.invalid("Label", "labels", "invalid")
    names = []
    for item in raw:
        name = item.get("name") if isinstance(item, dict) else item
        if not isinstance(name, str) or not name.strip():
            raise ApiError.invalid("Label", "name", "invalid")
        names.append(name.strip())
    return names


def _logins(raw: Any, resource: str = "Issue") -> list[str]:
    if raw is None:
        return []
    if not isinstance(raw, list):
        raise ApiError.invalid(resource, "assignees", "invalid")
    out: list[str] = []
    for item in raw:
        login = item.get("login") if isinstance(item, dict) else item
        if not isinstance(login, str):
            raise ApiError.invalid(resource, "assignees", "invalid")
        if login.lower() not in (a.lower() for a in out):
            out.append(login)
    return out


def _check_title_body(body: dict[str, Any], *, title_required: bool) -> tuple[str | None, str | None]:
    title = body.get("title")
    if isinstance(title, int) and not isinstance(title, bool):
        title = str(title)
    if title is None and title_required:
        raise ApiError.invalid("Issue", "title", "missing_field")
    if title is not None:
        if not isinstance(title, str):
            raise ApiError.invalid("Issue", "title", "invalid")
        if not title.strip():
            raise ApiError.invalid("Issue", "title", "missing_field")
        if len(title) > MAX_TITLE:
            raise ApiError.too_long("Issue", "title", MAX_TITLE)
    text = _str(body, "body", "Issue")
    if text is not None and len(text) > MAX_BODY:
        raise ApiError.too_long("Issue", "body", MAX_BODY)
    return title, text


def _issue(fake: FakeGitHub, ctx: Ctx) -> Issue:
    iss = fake.issues.get(ctx.number())
    if iss is None:
        if fake.gone.get(ctx.number()) == "deleted":
            raise ApiError(410, "This issue was deleted")
        raise ApiError.not_found()
    return iss


def _check_label_fields(fake: FakeGitHub, name: str | None, color: str | None, desc: str | None) -> None:
    if name is not None:
        if not name.strip():
            raise ApiError.invalid("Label", "name", "missing_field")
        if len(name) > MAX_LABEL_NAME:
            raise ApiError.invalid("Label", "name", "invalid")
    if color is not None and not _COLOR.fullmatch(color):
        raise ApiError.invalid("Label", "color", "invalid")
    if desc is not None and len(desc) > MAX_LABEL_DESCRIPTION:
        raise ApiError.too_long("Label", "description", MAX_LABEL_DESCRIPTION)


# --------------------------------------------------------------------------- repository / users


@route("repos/get")
def get_repo(fake: FakeGitHub, ctx: Ctx) -> Reply:
    """``GET /repos/{owner}/{repo}``."""
    return Reply(200, P.repository(fake))


@route("repos/get-collaborator-permission-level")
def get_permission(fake: FakeGitHub, ctx: Ctx) -> Reply:
    """``GET /repos/{o}/{r}/collaborators/{username}/permission``; unknown users are 404."""
    login = ctx.params["username"]
    u = fake.users.get(login.lower())
    if u is None:
        raise ApiError.not_found()
    role = fake.permission_of(u.login)
    permission = {"maintain": "write", "triage": "read"}.get(role, role)
    out = P.user(fake, u)
    assert out is not None
    out["role_name"] = role
    out["permissions"] = P.permission_flags(role)
    return Reply(200, {"permission": permission, "role_name": role, "user": out})


@route("users/get-authenticated")
def get_authenticated(fake: FakeGitHub, ctx: Ctx) -> Reply:
    """``GET /user``; 401 without a token, as on GitHub."""
    if not ctx.headers.get("authorization"):
        raise ApiError(401, "Requires authentication")
    if fake.actor_kind == "app":  # an installation token is not a user: GraphQL's viewer answers instead
        raise ApiError(403, "Resource not accessible by integration")
    return Reply(200, P.public_user(fake, fake.add_user(fake.actor)))


@route("users/get-by-username")
def get_user(fake: FakeGitHub, ctx: Ctx) -> Reply:
    """``GET /users/{username}``; only users the fake has seen exist."""
    u = fake.users.get(ctx.params["username"].lower())
    if u is None:
        raise ApiError.not_found()
    return Reply(200, P.public_user(fake, u))


@route("orgs/get")
def get_org(fake: FakeGitHub, ctx: Ctx) -> Reply:
    """``GET /orgs/{org}`` for the owner (if an organisation) and orgs with teams."""
    org = fake.users.get(ctx.params["org"].lower())
    if org is None or org.type != "Organization":
        raise ApiError.not_found()
    return Reply(200, P.organization(fake, org))


@route("rate-limit/get")
def get_rate_limit(fake: FakeGitHub, ctx: Ctx) -> Reply:
    """``GET /rate_limit`` (does not count against the limit)."""
    return Reply(200, P.rate_limit(fake))


# --------------------------------------------------------------------------- labels


@route("issues/list-labels-for-repo")
def list_labels(fake: FakeGitHub, ctx: Ctx) -> Reply:
    """``GET /labels``, in creation order."""
    return ctx.page([P.label(fake, lab) for lab in sorted(fake.labels.values(), key=lambda x: x.id)])


@route("issues/get-label")
def get_label(fake: FakeGitHub, ctx: Ctx) -> Reply:
    """``GET /labels/{name}`` (case-insensitive)."""
    lab = fake.labels.get(ctx.params["name"].lower())
    if lab is None:
        raise ApiError.not_found()
    return Reply(200, P.label(fake, lab))


@route("issues/create-label")
def create_label(fake: FakeGitHub, ctx: Ctx) -> Reply:
    """``POST /labels``: 422 on duplicates (case-insensitive) and names over 50 chars."""
    body = ctx.obj()
    name = _str(body, "name", "Label")
    if name is None:
        raise ApiError.invalid("Label", "name", "missing_field")
    color = _str(body, "color", "Label")
    desc = _str(body, "description", "Label")
    _check_label_fields(fake, name, color, desc)
    if name.lower() in fake.labels:
        raise ApiError.invalid("Label", "name", "already_exists")
    lab = fake.add_label(name, (color or "ededed").lstrip("#").lower(), desc)
    return Reply(201, P.label(fake, lab), {"location": P.label(fake, lab)["url"]})


@route("issues/update-label")
def update_label(fake: FakeGitHub, ctx: Ctx) -> Reply:
    """``PATCH /labels/{name}``: rename (issues follow), recolour, describe."""
    lab = fake.labels.get(ctx.params["name"].lower())
    if lab is None:
        raise ApiError.not_found()
    body = ctx.obj()
    new_name = _str(body, "new_name", "Label")
    color = _str(body, "color", "Label")
    desc = _str(body, "description", "Label")
    _check_label_fields(fake, new_name, color, desc)
    if new_name is not None and new_name.lower() != lab.name.lower() and new_name.lower() in fake.labels:
        raise ApiError.invalid("Label", "name", "already_exists")
    if new_name is not None:
        fake.rename_label(lab, new_name)
    if color is not None:
        lab.color = color.lstrip("#").lower()
    if "description" in body:
        lab.description = desc
    return Reply(200, P.label(fake, lab))


@route("issues/delete-label")
def delete_label(fake: FakeGitHub, ctx: Ctx) -> Reply:
    """``DELETE /labels/{name}``: also removed from every issue."""
    lab = fake.labels.get(ctx.params["name"].lower())
    if lab is None:
        raise ApiError.not_found()
    del fake.labels[lab.name.lower()]
    for iss in fake.issues.values():
        iss.labels = [n for n in iss.labels if n.lower() != lab.name.lower()]
    return Reply(204)


# --------------------------------------------------------------------------- issues


def _matches_list_filters(iss: Issue, q: dict[str, str]) -> bool:
    state = q.get("state", "open")
    if state in ("open", "closed") and iss.state != state:
        return False
    wanted = [w.strip().lower() for w in q.get("labels", "").split(",") if w.strip()]
    have = {n.lower() for n in iss.labels}
    if any(w not in have for w in wanted):
        return False
    assignee = q.get("assignee")
    if assignee == "none" and iss.assignees:
        return False
    if assignee == "*" and not iss.assignees:
        return False
    if assignee not in (None, "none", "*") and assignee.lower() not in (a.lower() for a in iss.assignees):
        return False
    creator = q.get("creator")
    if creator is not None and creator.lower() != iss.user.lower():
        return False
    since = q.get("since")
    return not (since is not None and iss.updated_at < parse_iso(since))


def _sorted(items: list[Issue], q: dict[str, str], fake: FakeGitHub) -> list[Issue]:
    sort = q.get("sort", "created")

    def key(i: Issue) -> Any:
        if sort == "updated":
            return (i.updated_at, i.number)
        if sort == "comments":
            return (fake.comment_count(i.number), i.number)
        return (i.created_at, i.number)

    return sorted(items, key=key, reverse=q.get("direction", "desc") != "asc")


@route("issues/list-for-repo")
def list_issues(fake: FakeGitHub, ctx: Ctx) -> Reply:
    """``GET /issues``: state/labels(AND, case-insensitive)/assignee/creator/since, PRs included."""
    items = [i for i in fake.issues.values() if _matches_list_filters(i, ctx.query)]
    return ctx.page([P.issue(fake, i) for i in _sorted(items, ctx.query, fake)])


@route("issues/get")
def get_issue(fake: FakeGitHub, ctx: Ctx) -> Reply:
    """``GET /issues/{n}`` (PRs too)."""
    return Reply(200, P.issue(fake, _issue(fake, ctx)))


@route("issues/create")
def create_issue(fake: FakeGitHub, ctx: Ctx) -> Reply:
    """``POST /issues``: unknown labels are created on the fly, as GitHub does."""
    body = ctx.obj()
    title, text = _check_title_body(body, title_required=True)
    labels = _capped(_label_names(body.get("labels")))
    assignees = _logins(body.get("assignees"))
    single = _str(body, "assignee", "Issue")
    if single and single.lower() not in (a.lower() for a in assignees):
        assignees.insert(0, single)
    assert title is not None
    iss = fake.add_issue(title, text, labels=labels, assignees=assignees, author=fake.actor)
    url = P.issue(fake, iss)
    return Reply(201, url, {"location": url["url"]})


@route("issues/update")
def update_issue(fake: FakeGitHub, ctx: Ctx) -> Reply:
    """``PATCH /issues/{n}``: title, body, state(+reason), labels, assignees."""
    iss = _issue(fake, ctx)
    body = ctx.obj()
    title, text = _check_title_body(body, title_required=False)
    state = body.get("state")
    if state is not None and state not in ("open", "closed"):
        raise ApiError.invalid("Issue", "state", "invalid")
    reason = body.get("state_reason")
    if reason is not None and reason not in ("completed", "not_planned", "reopened", "duplicate"):
        raise ApiError.invalid("Issue", "state_reason", "invalid")
    labels = _capped(_label_names(body["labels"])) if body.get("labels") is not None else None
    assignees = _logins(body["assignees"]) if "assignees" in body else None
    if "assignee" in body and assignees is None:
        single = _str(body, "assignee", "Issue")
        assignees = [single] if single else []
    changed = False
    if title is not None and title != iss.title:
        iss.title, changed = title, True
    if "body" in body and text != iss.body:
        fake.record_edit(iss, text or "", fake.actor)  # who edited it, in GitHub's edit history
        changed = True
    if state is not None and state != iss.state:
        changed = True
        iss.state = state
        if state == "closed":
            iss.closed_at = fake.now()
            iss.closed_by = fake.actor
            iss.state_reason = None if iss.is_pull else (reason or "completed")
        else:
            iss.closed_at = None
            iss.state_reason = None if iss.is_pull else "reopened"
    if labels is not None:
        iss.labels = fake.ensure_labels(labels)
        changed = True
    if assignees is not None:
        iss.assignees = [fake.add_user(a).login for a in assignees]
        changed = True
    if changed:
        iss.updated_at = fake.tick()
    return Reply(200, P.issue(fake, iss))


@route("issues/list-labels-on-issue")
def list_issue_labels(fake: FakeGitHub, ctx: Ctx) -> Reply:
    """``GET /issues/{n}/labels``."""
    iss = _issue(fake, ctx)
    return ctx.page([P.label(fake, fake.labels[n.lower()]) for n in iss.labels])


@route("issues/add-labels")
def add_labels(fake: FakeGitHub, ctx: Ctx) -> Reply:
    """``POST /issues/{n}/labels``: adds (creating unknown labels); answers the full list."""
    iss = _issue(fake, ctx)
    names = _label_names(ctx.body)
    have = {n.lower() for n in iss.labels}
    _capped([*iss.labels, *names])
    for name in fake.ensure_labels(names):
        if name.lower() not in have:
            iss.labels.append(name)
            have.add(name.lower())
    iss.updated_at = fake.tick()
    return Reply(200, [P.label(fake, fake.labels[n.lower()]) for n in iss.labels])


@route("issues/set-labels")
def set_labels(fake: FakeGitHub, ctx: Ctx) -> Reply:
    """``PUT /issues/{n}/labels``: replaces the set."""
    iss = _issue(fake, ctx)
    names = _capped(_label_names(ctx.body))
    iss.labels = fake.ensure_labels(names)
    iss.updated_at = fake.tick()
    return Reply(200, [P.label(fake, fake.labels[n.lower()]) for n in iss.labels])


@route("issues/remove-label")
def remove_label(fake: FakeGitHub, ctx: Ctx) -> Reply:
    """``DELETE /issues/{n}/labels/{name}``: 404 ``Label does not exist`` if not set."""
    iss = _issue(fake, ctx)
    name = ctx.params["name"].lower()
    if name not in (n.lower() for n in iss.labels):
        raise ApiError(404, "Label does not exist")
    iss.labels = [n for n in iss.labels if n.lower() != name]
    iss.updated_at = fake.tick()
    return Reply(200, [P.label(fake, fake.labels[n.lower()]) for n in iss.labels])


@route("issues/remove-all-labels")
def remove_all_labels(fake: FakeGitHub, ctx: Ctx) -> Reply:
    """``DELETE /issues/{n}/labels``."""
    iss = _issue(fake, ctx)
    iss.labels = []
    iss.updated_at = fake.tick()
    return Reply(204)


@route("issues/add-assignees")
def add_assignees(fake: FakeGitHub, ctx: Ctx) -> Reply:
    """``POST /issues/{n}/assignees`` (GitHub allows at most 10)."""
    iss = _issue(fake, ctx)
    logins = _logins(ctx.obj().get("assignees"))
    for login in logins:
        if login.lower() not in (a.lower() for a in iss.assignees) and len(iss.assignees) < 10:
            iss.assignees.append(fake.add_user(login).login)
    iss.updated_at = fake.tick()
    return Reply(201, P.issue(fake, iss))


@route("issues/remove-assignees")
def remove_assignees(fake: FakeGitHub, ctx: Ctx) -> Reply:
    """``DELETE /issues/{n}/assignees``."""
    iss = _issue(fake, ctx)
    drop = {login.lower() for login in _logins(ctx.obj().get("assignees"))}
    iss.assignees = [a for a in iss.assignees if a.lower() not in drop]
    iss.updated_at = fake.tick()
    return Reply(200, P.issue(fake, iss))


# --------------------------------------------------------------------------- comments


def _check_comment_body(body: dict[str, Any]) -> str:
    text = body.get("body")
    if not isinstance(text, str) or not text.strip():
        raise ApiError.invalid("IssueComment", "body", "missing_field")
    if len(text) > MAX_BODY:
        raise ApiError.too_long("IssueComment", "body", MAX_BODY)
    return text


def _comment(fake: FakeGitHub, ctx: Ctx) -> Comment:
    c = fake.comments.get(ctx.number("comment_id"))
    if c is None:
        raise ApiError.not_found()
    return c


@route("issues/list-comments")
def list_comments(fake: FakeGitHub, ctx: Ctx) -> Reply:
    """``GET /issues/{n}/comments`` oldest first; ``since`` filters on ``updated_at``."""
    iss = _issue(fake, ctx)
    items = [c for c in fake.comments.values() if c.issue_number == iss.number]
    if "since" in ctx.query:
        since = parse_iso(ctx.query["since"])
        items = [c for c in items if c.updated_at >= since]
    items.sort(key=lambda c: c.id)
    return ctx.page([P.comment(fake, c) for c in items])


@route("issues/create-comment")
def create_comment(fake: FakeGitHub, ctx: Ctx) -> Reply:
    """``POST /issues/{n}/comments``; body 1..65536 chars; 403 on locked issues."""
    iss = _issue(fake, ctx)
    text = _check_comment_body(ctx.obj())
    if iss.locked and fake.permission_of(fake.actor) not in ("admin", "maintain", "write"):
        raise ApiError(403, "Unable to create comment because issue is locked.")
    c = fake.add_comment(iss.number, text, author=fake.actor)
    out = P.comment(fake, c)
    return Reply(201, out, {"location": out["url"]})


@route("issues/get-comment")
def get_comment(fake: FakeGitHub, ctx: Ctx) -> Reply:
    """``GET /issues/comments/{id}``."""
    return Reply(200, P.comment(fake, _comment(fake, ctx)))


@route("issues/update-comment")
def update_comment(fake: FakeGitHub, ctx: Ctx) -> Reply:
    """``PATCH /issues/comments/{id}``."""
    c = _comment(fake, ctx)
    text = _check_comment_body(ctx.obj())
    if text != c.body:
        fake.record_edit(c, text, fake.actor)  # who edited it, in GitHub's edit history
    return Reply(200, P.comment(fake, c))


@route("issues/delete-comment")
def delete_comment(fake: FakeGitHub, ctx: Ctx) -> Reply:
    """``DELETE /issues/comments/{id}``."""
    c = _comment(fake, ctx)
    del fake.comments[c.id]
    return Reply(204)


# --------------------------------------------------------------------------- ghcost: reactions


@route("reactions/create-for-issue-comment")
def create_comment_reaction(fake: FakeGitHub, ctx: Ctx) -> Reply:
    """``POST /issues/comments/{id}/reactions``: 201 when added, 200 with the existing one when the same
    user already reacted with the same content (GitHub's idempotence); 404 for an unknown comment."""
    c = _comment(fake, ctx)
    content = ctx.obj().get("content")
    if content not in REACTIONS:
        raise ApiError.invalid("Reaction", "content", "invalid")
    who = fake.login
    for r in fake.reactions:
        if (r.comment_id, r.user.lower(), r.content) == (c.id, who.lower(), content):
            return Reply(200, P.reaction(fake, r))
    r = Reaction(fake.next_id("reaction"), c.id, fake.add_user(who).login, content, fake.tick())
    fake.reactions.append(r)
    return Reply(201, P.reaction(fake, r))


@route("reactions/list-for-issue-comment")
def list_comment_reactions(fake: FakeGitHub, ctx: Ctx) -> Reply:
    """``GET /issues/comments/{id}/reactions``: oldest first, paginated; ``content`` keeps one kind (an
    unknown kind is a validation failure); 404 for an unknown comment."""
    c = _comment(fake, ctx)
    items = [r for r in fake.reactions if r.comment_id == c.id]
    if "content" in ctx.query:
        if ctx.query["content"] not in REACTIONS:
            raise ApiError.invalid("Reaction", "content", "invalid")
        items = [r for r in items if r.content == ctx.query["content"]]
    return ctx.page([P.reaction(fake, r) for r in items])


REACTIONS = ("+1", "-1", "laugh", "confused", "heart", "hooray", "rocket", "eyes")


# --------------------------------------------------------------------------- dependencies


@route("issues/list-dependencies-blocked-by")
def list_blocked_by(fake: FakeGitHub, ctx: Ctx) -> Reply:
    """``GET /issues/{n}/dependencies/blocked_by``."""
    iss = _issue(fake, ctx)
    items = [fake.issue_by_id(i) for i in iss.blocked_by]
    return ctx.page([P.issue(fake, b) for b in items if b is not None])


@route("issues/list-dependencies-blocking")
def list_blocking(fake: FakeGitHub, ctx: Ctx) -> Reply:
    """``GET /issues/{n}/dependencies/blocking``."""
    iss = _issue(fake, ctx)
    return ctx.page([P.issue(fake, b) for b in fake.blocking_of(iss)])


@route("issues/add-blocked-by-dependency")
def add_blocked_by(fake: FakeGitHub, ctx: Ctx) -> Reply:
    """``POST /issues/{n}/dependencies/blocked_by`` with the blocker's *database id*.

    Answers the blocked issue (``{issue_number}``), which is what PyGithub's
    ``Issue.add_blocked_by`` stores back into itself.
    """
    iss = _issue(fake, ctx)
    raw = ctx.obj().get("issue_id")
    if not isinstance(raw, int) or isinstance(raw, bool):
        raise ApiError.invalid("IssueDependency", "issue_id", "invalid")
    blocker = fake.issue_by_id(raw)
    if blocker is None:
        raise ApiError.not_found()
    if blocker.number == iss.number:
        raise ApiError.invalid("IssueDependency", "issue_id", "custom", "An issue cannot block itself")
    if raw in iss.blocked_by:
        raise ApiError.invalid("IssueDependency", "issue_id", "already_exists")
    iss.blocked_by.append(raw)
    iss.updated_at = fake.tick()
    out = P.issue(fake, iss)
    return Reply(201, out, {"location": f"{out['url']}/dependencies/blocked_by"})


@route("issues/remove-dependency-blocked-by")
def remove_blocked_by(fake: FakeGitHub, ctx: Ctx) -> Reply:
    """``DELETE /issues/{n}/dependencies/blocked_by/{issue_id}``; answers the blocked issue."""
    iss = _issue(fake, ctx)
    blocker_id = ctx.number("issue_id")
    if blocker_id not in iss.blocked_by:
        raise ApiError.not_found()
    iss.blocked_by.remove(blocker_id)
    iss.updated_at = fake.tick()
    return Reply(200, P.issue(fake, iss))


# --------------------------------------------------------------------------- pulls / commits


def _pull(fake: FakeGitHub, ctx: Ctx) -> Issue:
    iss = fake.issues.get(ctx.number("pull_number"))
    if iss is None or iss.pull is None:
        raise ApiError.not_found()
    return iss


@route("pulls/get")
def get_pull(fake: FakeGitHub, ctx: Ctx) -> Reply:
    """``GET /pulls/{n}``."""
    return Reply(200, P.pull(fake, _pull(fake, ctx)))


@route("pulls/list")
def list_pulls(fake: FakeGitHub, ctx: Ctx) -> Reply:
    """``GET /pulls?state=&head=owner:ref&base=&sort=&direction=``."""
    q = ctx.query
    state = q.get("state", "open")
    items = []
    for iss in fake.issues.values():
        pr = iss.pull
        if pr is None or (state in ("open", "closed") and iss.state != state):
            continue
        if "head" in q:
            owner, _, ref = q["head"].rpartition(":")
            head_owner = pr.head_owner or fake.owner
            if ref != pr.head_ref or (owner and owner.lower() != head_owner.lower()):
                continue
        if "base" in q and q["base"] != pr.base_ref:
            continue
        items.append(iss)
    return ctx.page([P.pull(fake, i) for i in _sorted(items, q, fake)])


@route("pulls/list-commits")
def list_pull_commits(fake: FakeGitHub, ctx: Ctx) -> Reply:
    """``GET /pulls/{n}/commits``, oldest first (GitHub caps this at 250)."""
    pr = _pull(fake, ctx).pull
    assert pr is not None
    return ctx.page([P.commit(fake, fake.commits[sha]) for sha in pr.commits[:250]])


@route("repos/list-pull-requests-associated-with-commit")
def list_commit_pulls(fake: FakeGitHub, ctx: Ctx) -> Reply:
    """``GET /commits/{commit_sha}/pulls``: the merged pull requests that brought the commit in, else
    the open ones that contain it.

    As on GitHub, the commits of a pull request from a fork are not this repository's until it is
    merged: such a pull request is not found by its commits while it is open (look it up by
    ``GET /pulls?head=<fork owner>:<branch>`` instead).
    """
    sha = ctx.params["commit_sha"].lower()
    containing = [
        iss for iss in fake.issues.values() if iss.pull is not None and any(c.lower() == sha for c in iss.pull.commits)
    ]
    merged = [iss for iss in containing if iss.pull is not None and iss.pull.merged]
    found = merged or [
        iss for iss in containing if iss.state == "open" and iss.pull is not None and iss.pull.head_repo is None
    ]
    return ctx.page([P.pull(fake, i) for i in found])


@route("repos/list-branches-for-head-commit")
def list_head_branches(fake: FakeGitHub, ctx: Ctx) -> Reply:
    """``GET /commits/{commit_sha}/branches-where-head``: this repository's branches whose head is the commit
    (a 422 for a commit GitHub does not know)."""
    sha = ctx.params["commit_sha"].lower()
    if fake.resolve_commit(sha) is None:
        raise ApiError(422, f"No commit found for SHA: {ctx.params['commit_sha']}")
    found = sorted(name for name, head in fake.branches.items() if head.lower() == sha)
    return Reply(200, [P.branch_short(fake, name) for name in found])


@route("repos/get-commit")
def get_commit(fake: FakeGitHub, ctx: Ctx) -> Reply:
    """``GET /commits/{ref}`` (sha, unique sha prefix or branch)."""
    c = fake.resolve_commit(ctx.params["ref"])
    if c is None:
        raise ApiError(422, f"No commit found for SHA: {ctx.params['ref']}")
    return Reply(200, P.commit(fake, c))


# --------------------------------------------------------------------------- statuses


@route("repos/create-commit-status")
def create_status(fake: FakeGitHub, ctx: Ctx) -> Reply:
    """``POST /statuses/{sha}``: state enum, description <= 140 chars, known commit."""
    body = ctx.obj()
    state = body.get("state")
    if state not in STATUS_STATES:
        raise ApiError.invalid("Status", "state", "custom", "state is not included in the list")
    desc = _str(body, "description", "Status")
    if desc is not None and len(desc) > MAX_STATUS_DESCRIPTION:
        raise ApiError.too_long("Status", "description", MAX_STATUS_DESCRIPTION)
    target = _str(body, "target_url", "Status")
    context = _str(body, "context", "Status") or "default"
    c = fake.resolve_commit(ctx.params["sha"])
    if c is None:
        raise ApiError(422, f"No commit found for SHA: {ctx.params['sha']}")
    now = fake.tick()
    s = Status(fake.next_id("status"), c.sha, state, context, desc, target, fake.actor, now, now)
    fake.statuses.append(s)
    out = P.status(fake, s)
    return Reply(201, out, {"location": out["url"]})


@route("repos/list-commit-statuses-for-ref")
def list_statuses(fake: FakeGitHub, ctx: Ctx) -> Reply:
    """``GET /commits/{ref}/statuses``: newest first, every status ever posted."""
    c = fake.resolve_commit(ctx.params.get("ref") or ctx.params["sha"])
    if c is None:
        return ctx.page([])
    items = [s for s in reversed(fake.statuses) if s.sha == c.sha]
    return ctx.page([P.status(fake, s) for s in items])


@route("repos/get-combined-status-for-ref")
def combined_status(fake: FakeGitHub, ctx: Ctx) -> Reply:
    """``GET /commits/{ref}/status``: latest per context (case-insensitive)."""
    ref = ctx.params["ref"]
    c = fake.resolve_commit(ref)
    if c is None:
        raise ApiError(422, f"No commit found for SHA: {ref}")
    latest = fake.latest_statuses(c.sha)
    states = {s.state for s in latest}
    if states & {"error", "failure"}:
        state = "failure"
    elif not latest or "pending" in states:
        state = "pending"
    else:
        state = "success"
    statuses = [P.simple_status(fake, s) for s in latest]
    # the statuses array is paginated, total_count counts all contexts
    per_page = fake.per_page(ctx.query)
    page = fake.page_number(ctx.query)
    return Reply(
        200,
        {
            "state": state,
            "statuses": statuses[(page - 1) * per_page : page * per_page],
            "sha": c.sha,
            "total_count": len(statuses),
            "repository": P.minimal_repo(fake),
            "commit_url": f"{fake.repo_api}/commits/{c.sha}",
            "url": f"{fake.repo_api}/commits/{urllib.parse.quote(ref, safe='')}/status",
        },
    )


# --------------------------------------------------------------------------- check runs (ghtrust)

CHECK_STATUSES = ("queued", "in_progress", "completed")
#: Conclusions an App may set (``stale`` is GitHub's own).
CHECK_CONCLUSIONS = ("action_required", "cancelled", "failure", "neutral", "success", "skipped", "timed_out")
MAX_CHECK_TEXT = 65535


def _check_fields(body: dict[str, Any], run: CheckRun | None) -> tuple[str, str | None]:
    """The status and conclusion a create or update leaves, with GitHub's rules for the pair."""
    status = body.get("status", run.status if run else "queued")
    conclusion = body.get("conclusion", run.conclusion if run else None)
    if status not in CHECK_STATUSES:
        raise ApiError.invalid("CheckRun", "status", "invalid")
    if "conclusion" in body and conclusion is not None:
        if conclusion not in CHECK_CONCLUSIONS:
            raise ApiError.invalid("CheckRun", "conclusion", "invalid")
        status = "completed"  # "Providing conclusion will automatically set the status to completed"
    if status == "completed" and conclusion is None:
        raise ApiError.invalid("CheckRun", "conclusion", "missing_field", "conclusion is required when completed")
    if status != "completed":
        conclusion = None
    output = body.get("output") or {}
    for key in ("summary", "text"):
        if isinstance(output.get(key), str) and len(output[key]) > MAX_CHECK_TEXT:
            raise ApiError.too_long("CheckRun", f"output.{key}", MAX_CHECK_TEXT)
    return status, conclusion


def _only_apps(fake: FakeGitHub) -> None:
    """GitHub: only GitHub Apps (installation tokens, the Actions token among them) write check runs."""
    if fake.actor_kind != "app":
        raise ApiError(403, "You must authenticate via a GitHub App.")


def _apply_output(run: CheckRun, body: dict[str, Any]) -> None:
    output = body.get("output")
    if isinstance(output, dict):
        run.title = output.get("title", run.title)
        run.summary = output.get("summary", run.summary)
        run.text = output.get("text", run.text)
    if "details_url" in body:
        run.details_url = body["details_url"]
    if "external_id" in body:
        run.external_id = body["external_id"]


@route("checks/create")
def create_check_run(fake: FakeGitHub, ctx: Ctx) -> Reply:
    """``POST /check-runs``: Apps only (403 otherwise), a known commit, a conclusion once completed."""
    _only_apps(fake)
    body = ctx.obj()
    name = _str(body, "name", "CheckRun", allow_none=False)
    sha = _str(body, "head_sha", "CheckRun", allow_none=False)
    assert name is not None
    assert sha is not None
    if not name.strip():
        raise ApiError.invalid("CheckRun", "name", "missing_field")
    commit = fake.resolve_commit(sha)
    if commit is None or commit.sha != sha:
        raise ApiError(422, f"No commit found for SHA: {sha}")
    status, conclusion = _check_fields(body, None)
    now = fake.tick()
    run = CheckRun(
        fake.next_id("check_run"),
        name,
        commit.sha,
        fake.actor,
        status,
        conclusion,
        started_at=now,
        completed_at=now if status == "completed" else None,
    )
    _apply_output(run, body)
    fake.check_runs.append(run)
    out = P.check_run(fake, run)
    return Reply(201, out)


def _check_run(fake: FakeGitHub, ctx: Ctx) -> CheckRun:
    wanted = ctx.number("check_run_id")
    run = next((r for r in fake.check_runs if r.id == wanted), None)
    if run is None:
        raise ApiError.not_found()
    return run


@route("checks/get")
def get_check_run(fake: FakeGitHub, ctx: Ctx) -> Reply:
    """``GET /check-runs/{id}``."""
    return Reply(200, P.check_run(fake, _check_run(fake, ctx)))


@route("checks/update")
def update_check_run(fake: FakeGitHub, ctx: Ctx) -> Reply:
    """``PATCH /check-runs/{id}``: only the App that created a check run may change it."""
    _only_apps(fake)
    run = _check_run(fake, ctx)
    if run.app.lower() != fake.actor.lower():
        raise ApiError(403, "Invalid app_id: a check run can only be modified by the GitHub App that created it.")
    body = ctx.obj()
    status, conclusion = _check_fields(body, run)
    if "name" in body:
        run.name = _str(body, "name", "CheckRun", allow_none=False) or run.name
    was_done = run.status == "completed"
    run.status, run.conclusion = status, conclusion
    if status == "completed" and not was_done:
        run.completed_at = fake.tick()
    elif status != "completed":
        run.completed_at = None
    _apply_output(run, body)
    return Reply(200, P.check_run(fake, run))


@route("checks/list-for-ref")
def list_check_runs(fake: FakeGitHub, ctx: Ctx) -> Reply:
    """``GET /commits/{ref}/check-runs``: newest first; ``filter=latest`` (the default) keeps the latest
    run of each name per App, as GitHub does; ``check_name`` and ``status`` filter."""
    commit = fake.resolve_commit(ctx.params["ref"])
    if commit is None:
        raise ApiError(422, f"No commit found for SHA: {ctx.params['ref']}")
    runs = [r for r in reversed(fake.check_runs) if r.head_sha == commit.sha]
    if ctx.query.get("filter", "latest") == "latest":
        seen: set[tuple[str, str]] = set()
        latest = []
        for r in runs:
            if (r.name, r.app.lower()) not in seen:
                seen.add((r.name, r.app.lower()))
                latest.append(r)
        runs = latest
    if "check_name" in ctx.query:
        runs = [r for r in runs if r.name == ctx.query["check_name"]]
    if "status" in ctx.query:
        runs = [r for r in runs if r.status == ctx.query["status"]]
    per = fake.per_page(ctx.query)
    page = fake.page_number(ctx.query)
    shown = [P.check_run(fake, r) for r in runs[(page - 1) * per : page * per]]
    return Reply(200, {"total_count": len(runs), "check_runs": shown})


# --------------------------------------------------------------------------- contents


@route("repos/get-content")
def get_content(fake: FakeGitHub, ctx: Ctx) -> Reply:
    """``GET /contents/{path}?ref=``: a file (base64) or a directory listing."""
    path = ctx.params["path"].strip("/")
    ref = ctx.query.get("ref") or fake.default_branch
    tree = fake.files.get(fake.canonical_ref(ref), {})
    if path in tree:
        return Reply(200, P.content_file(fake, path, ref, tree[path]))
    prefix = path + "/" if path else ""
    children: dict[str, str | None] = {}
    for p, text in tree.items():
        if p.startswith(prefix):
            head, sep, _ = p[len(prefix) :].partition("/")
            children[prefix + head] = None if sep else text
    if not children:
        raise ApiError.not_found()
    return Reply(200, [P.content_entry(fake, p, ref, t) for p, t in sorted(children.items())])


@route("git/get-tree")
def get_tree(fake: FakeGitHub, ctx: Ctx) -> Reply:
    """``GET /git/trees/{tree_sha}[?recursive=1]``: the tree of a commit (its sha, its tree's sha or a branch).

    Without ``recursive`` only the top level is listed; with it (any value, as on GitHub) every blob and
    sub-tree, paths from the root. ``truncated`` is set when the fake is told to truncate listings.
    """
    ref = ctx.params["tree_sha"]
    commit = fake.resolve_commit(ref) or next((c for c in fake.commits.values() if c.sha[::-1] == ref), None)
    if commit is None:
        raise ApiError.not_found()
    files = fake.files.get(fake.canonical_ref(commit.sha), {})
    recursive = "recursive" in ctx.query
    entries: dict[str, str | None] = {}
    for path, text in files.items():
        parts = path.split("/")
        for depth in range(1, len(parts)):
            entries.setdefault("/".join(parts[:depth]), None)
        entries[path] = text
    if not recursive:
        entries = {p: t for p, t in entries.items() if "/" not in p}
    return Reply(200, P.git_tree(fake, commit.sha[::-1], sorted(entries.items()), truncated=fake.truncate_trees))


# --------------------------------------------------------------------------- teams


def _team(fake: FakeGitHub, ctx: Ctx) -> Team:
    t = fake.teams.get((ctx.params["org"].lower(), ctx.params["team_slug"].lower()))
    if t is None:
        raise ApiError.not_found()
    return t


@route("teams/get-by-name")
def get_team(fake: FakeGitHub, ctx: Ctx) -> Reply:
    """``GET /orgs/{org}/teams/{slug}``."""
    return Reply(200, P.team_full(fake, _team(fake, ctx)))


@route("teams/get-membership-for-user-in-org")
def get_membership(fake: FakeGitHub, ctx: Ctx) -> Reply:
    """``GET .../memberships/{user}``: child-team members count, as on GitHub."""
    t = _team(fake, ctx)
    members = fake.team_members(t)
    role = members.get(ctx.params["username"].lower())
    if role is None:
        raise ApiError.not_found()
    login = fake.users[ctx.params["username"].lower()].login
    return Reply(200, P.team_membership(fake, t, login, role[0]))


@route("teams/list-members-in-org")
def list_team_members(fake: FakeGitHub, ctx: Ctx) -> Reply:
    """``GET .../members?role=all|member|maintainer`` including child teams' members."""
    t = _team(fake, ctx)
    want = ctx.query.get("role", "all")
    items = []
    for login_lc, (role, inherited) in fake.team_members(t).items():
        if want != "all" and role != want:
            continue
        out = P.user(fake, fake.users[login_lc])
        assert out is not None
        out.update(role=role, inherited=inherited)
        items.append(out)
    return ctx.page(items)


@route("teams/list-child-in-org")
def list_child_teams(fake: FakeGitHub, ctx: Ctx) -> Reply:
    """``GET .../teams``: direct children only."""
    t = _team(fake, ctx)
    kids = [
        c
        for c in fake.teams.values()
        if c.org.lower() == t.org.lower() and c.parent and c.parent.lower() == t.slug.lower()
    ]
    return ctx.page([P.team(fake, c) for c in sorted(kids, key=lambda c: c.id)])

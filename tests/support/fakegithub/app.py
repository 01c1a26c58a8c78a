"""The fake's GitHub App endpoints, branch protection and rulesets, after GitHub's documented behaviour.

* ``fake.install_app()`` makes the repository's account a GitHub App installation: a real RSA key pair
  (the private PEM is returned, as GitHub hands it out once), an installation on ``owner/repo``, and
  the App's login ``<slug>[bot]`` as the fake's ``login``.
* Requests signed with the App's **JWT** (RS256, verified with PyJWT against the public key: ``iss`` the
  App id, ``exp`` at most 10 minutes after ``iat``, as GitHub requires) act as the App; only the App
  endpoints accept them (``/app``, ``/app/installations``, ``/app/hook/deliveries``, and
  ``/repos/{o}/{r}/installation``), and they refuse installation tokens (401, as GitHub does).
* ``POST /app/installations/{id}/access_tokens`` mints a new installation token (valid one hour of the
  real clock) acting as ``<slug>[bot]``; ``app.minted`` counts them.
* ``GET /app/hook/deliveries`` lists ``app.deliveries`` newest first with cursor pagination;
  ``POST /app/hook/deliveries/{id}/attempts`` records a redelivery and calls ``app.on_redeliver`` (the test
  acting as GitHub sends the delivery again) then answers 202.
* Branch protection (``fake.protection``: None is GitHub's 404 "Branch not protected") and the rules of
  active rulesets (``fake.rulesets``), and the workflows' default token permissions.
"""

from __future__ import annotations

import datetime as dt
import secrets
import time
import uuid
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import jwt
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import rsa

from . import payloads as P
from .routes import ApiError, Ctx, Reply, route
from .state import iso

if TYPE_CHECKING:
    from .server import FakeGitHub

#: Operations that take the App's JWT (and nothing else).
JWT_OPERATIONS = frozenset(
    {
        "apps/get-authenticated",
        "apps/list-installations",
        "apps/create-installation-access-token",
        "apps/get-repo-installation",
        "apps/list-webhook-deliveries",
        "apps/redeliver-webhook-delivery",
    }
)


@dataclass
class FakeDelivery:
    """One webhook delivery GitHub made (or failed to make)."""

    id: int
    guid: str
    event: str
    action: str | None
    payload: dict[str, Any]
    status_code: int
    delivered_at: dt.datetime
    redelivery: bool = False


@dataclass
class AppState:
    """The App: id, slug, key pair, its one installation, tokens minted, deliveries."""

    app_id: int
    slug: str
    private_pem: str
    public_key: Any
    installation_id: int
    minted: list[str] = field(default_factory=list)
    deliveries: list[FakeDelivery] = field(default_factory=list)
    redelivered: list[int] = field(default_factory=list)
    on_redeliver: Callable[[FakeDelivery], None] | None = None
    token_lifetime: float = 3600.0

    @property
    def login(self) -> str:
        return f"{self.slug}[bot]"


def generate_key() -> tuple[str, Any]:
    """A fresh 2048-bit RSA key: the private PEM, and the public key to verify JWTs with."""
    key = rsa.generate_private_key(public_exponent=65537, key_size=2048)
    pem = key.private_bytes(
        serialization.Encoding.PEM, serialization.PrivateFormat.TraditionalOpenSSL, serialization.NoEncryption()
    ).decode()
    return pem, key.public_key()


def install_app(
    fake: FakeGitHub, slug: str = "parkbot", app_id: int = 424242, key: tuple[str, Any] | None = None
) -> str:
    """Make the fake's repository an installation of App ``slug``; the App's private key (PEM)."""
    pem, public = key or generate_key()
    fake.app = AppState(app_id, slug, pem, public, installation_id=50_000_001)
    fake.login = f"{slug}[bot]"
    fake.add_user(fake.login, type="Bot")
    fake.set_permission(fake.login, "write")
    return pem


def authenticate_jwt(fake: FakeGitHub, token: str) -> bool:
    """Verify an App JWT as GitHub does; True (acting as the App) when it holds."""
    app = fake.app
    if app is None:
        return False
    try:
        claims = jwt.decode(token, app.public_key, algorithms=["RS256"], options={"require": ["iat", "exp", "iss"]})
    except jwt.PyJWTError:
        return False
    if str(claims["iss"]) != str(app.app_id) or claims["exp"] - claims["iat"] > 660:
        return False
    fake.actor, fake.actor_kind = app.login, "jwt"
    return True


def looks_like_jwt(token: str) -> bool:
    return token.count(".") == 2 and token.startswith("eyJ")


def require_jwt(fake: FakeGitHub, ctx: Ctx) -> AppState:
    if fake.app is None:
        raise ApiError.not_found()
    if fake.actor_kind != "jwt":
        raise ApiError(401, "A JSON web token could not be decoded")
    return fake.app


def add_delivery(fake: FakeGitHub, event: str, payload: dict[str, Any], *, status_code: int = 202) -> FakeDelivery:
    """Record a delivery GitHub made: ``status_code`` 0 or 5xx for one the server missed."""
    app = fake.app
    assert app is not None, "install_app first"
    delivery = FakeDelivery(
        id=fake.next_id("delivery"),
        guid=str(uuid.uuid4()),
        event=event,
        action=payload.get("action") if isinstance(payload.get("action"), str) else None,
        payload=payload,
        status_code=status_code,
        delivered_at=dt.datetime.now(dt.UTC).replace(microsecond=0),
    )
    app.deliveries.append(delivery)
    return delivery


def _integration(fake: FakeGitHub, app: AppState) -> dict[str, Any]:
    owner = fake.users[fake.owner.lower()]
    return {
        "id": app.app_id,
        "slug": app.slug,
        "node_id": f"A_{app.app_id}",
        "client_id": f"Iv1.{app.app_id:016x}",
        "owner": P.user(fake, owner),
        "name": app.slug,
        "description": "Parks agents' questions as decisions",
        "external_url": "https://example.com/parkbot",
        "html_url": f"https://github.com/apps/{app.slug}",
        "created_at": iso(fake.now()),
        "updated_at": iso(fake.now()),
        "permissions": {"issues": "write", "pull_requests": "write", "checks": "write", "contents": "read"},
        "events": ["issue_comment", "pull_request", "push", "issues", "merge_group", "check_run"],
        "installations_count": 1,
    }


def _account(fake: FakeGitHub) -> dict[str, Any]:
    """The installation's account: the owner as a simple user, with the name, slug and dates the trimmed
    description's validator also asks of it (its ``anyOf`` with ``enterprise`` resolves that way)."""
    owner = fake.users[fake.owner.lower()]
    account = P.user(fake, owner) or {}
    account.update(name=owner.login, slug=owner.login.lower(), created_at=iso(fake.now()), updated_at=iso(fake.now()))
    return account


def _installation(fake: FakeGitHub, app: AppState) -> dict[str, Any]:
    owner = fake.users[fake.owner.lower()]
    base = fake.api
    return {
        "id": app.installation_id,
        "account": _account(fake),
        "repository_selection": "selected",
        "access_tokens_url": f"{base}/app/installations/{app.installation_id}/access_tokens",
        "repositories_url": f"{base}/installation/repositories",
        "html_url": f"https://github.com/organizations/{fake.owner}/settings/installations/{app.installation_id}",
        "app_id": app.app_id,
        "target_id": owner.id,
        "target_type": owner.type,
        "permissions": {"issues": "write", "pull_requests": "write", "checks": "write", "contents": "read"},
        "events": ["issue_comment", "pull_request", "push"],
        "created_at": iso(fake.now()),
        "updated_at": iso(fake.now()),
        "single_file_name": None,
        "app_slug": app.slug,
        "suspended_by": None,
        "suspended_at": None,
    }


@route("apps/get-authenticated")
def get_app(fake: FakeGitHub, ctx: Ctx) -> Reply:
    """``GET /app`` with the App's JWT."""
    return Reply(200, _integration(fake, require_jwt(fake, ctx)))


@route("apps/list-installations")
def list_installations(fake: FakeGitHub, ctx: Ctx) -> Reply:
    """``GET /app/installations``: the one installation."""
    return ctx.page([_installation(fake, require_jwt(fake, ctx))])


@route("apps/get-repo-installation")
def get_repo_installation(fake: FakeGitHub, ctx: Ctx) -> Reply:
    """``GET /repos/{o}/{r}/installation``."""
    return Reply(200, _installation(fake, require_jwt(fake, ctx)))


@route("apps/create-installation-access-token")
def create_token(fake: FakeGitHub, ctx: Ctx) -> Reply:
    """``POST /app/installations/{id}/access_tokens``: a new token, one hour of the real clock."""
    app = require_jwt(fake, ctx)
    if ctx.number("installation_id") != app.installation_id:
        raise ApiError.not_found()
    token = "ghs_" + secrets.token_hex(18)
    fake.add_token(token, app.login, "app")
    app.minted.append(token)
    expires = dt.datetime.fromtimestamp(time.time() + app.token_lifetime, dt.UTC)
    body = {
        "token": token,
        "expires_at": iso(expires),
        "permissions": {"issues": "write", "pull_requests": "write", "checks": "write", "contents": "read"},
        "repository_selection": "selected",
    }
    return Reply(201, body)


@route("apps/list-repos-accessible-to-installation")
def list_installation_repos(fake: FakeGitHub, ctx: Ctx) -> Reply:
    """``GET /installation/repositories`` with an installation token."""
    if fake.app is None or fake.actor_kind != "app":
        raise ApiError(403, "Resource not accessible by integration")
    return Reply(200, {"total_count": 1, "repositories": [P.repository(fake)], "repository_selection": "selected"})


def _delivery_item(app: AppState, d: FakeDelivery) -> dict[str, Any]:
    return {
        "id": d.id,
        "guid": d.guid,
        "delivered_at": iso(d.delivered_at),
        "redelivery": d.redelivery,
        "duration": 0.05,
        "status": "OK" if 200 <= d.status_code < 300 else ("timed out" if d.status_code == 0 else "failed"),
        "status_code": d.status_code,
        "event": d.event,
        "action": d.action,
        "installation_id": app.installation_id,
        "repository_id": None,
        "throttled_at": None,
    }


@route("apps/list-webhook-deliveries")
def list_deliveries(fake: FakeGitHub, ctx: Ctx) -> Reply:
    """``GET /app/hook/deliveries``: newest first, ``per_page`` (max 100) and an opaque ``cursor``."""
    app = require_jwt(fake, ctx)
    per_page = max(1, min(100, int(ctx.query.get("per_page", "30"))))
    items = sorted(app.deliveries, key=lambda d: (d.delivered_at, d.id), reverse=True)
    start = int(ctx.query["cursor"]) if ctx.query.get("cursor", "").isdigit() else 0
    page = items[start : start + per_page]
    headers: dict[str, str] = {}
    if start + per_page < len(items):
        headers["link"] = f'<{fake.api}/app/hook/deliveries?per_page={per_page}&cursor={start + per_page}>; rel="next"'
    return Reply(200, [_delivery_item(app, d) for d in page], headers)


@route("apps/redeliver-webhook-delivery")
def redeliver(fake: FakeGitHub, ctx: Ctx) -> Reply:
    """``POST /app/hook/deliveries/{id}/attempts``: GitHub sends it again (a new delivery, same guid)."""
    app = require_jwt(fake, ctx)
    wanted = ctx.number("delivery_id")
    original = next((d for d in app.deliveries if d.id == wanted), None)
    if original is None:
        raise ApiError.not_found()
    app.redelivered.append(wanted)
    again = FakeDelivery(
        id=fake.next_id("delivery"),
        guid=original.guid,
        event=original.event,
        action=original.action,
        payload=original.payload,
        status_code=202,
        delivered_at=dt.datetime.now(dt.UTC).replace(microsecond=0),
        redelivery=True,
    )
    app.deliveries.append(again)
    if app.on_redeliver is not None:
        app.on_redeliver(again)
    return Reply(202, {})


# --------------------------------------------------------------------------- protection and rulesets


def require_check(fake: FakeGitHub, context: str, app_id: int | None, *, where: str = "ruleset") -> None:
    """Require ``context`` on the default branch, from ``app_id`` (None: any source), in a ruleset or the protection."""
    if where == "ruleset":
        fake.rulesets.append(
            {
                "type": "required_status_checks",
                "parameters": {
                    "required_status_checks": [
                        {"context": context, **({"integration_id": app_id} if app_id is not None else {})}
                    ],
                    "strict_required_status_checks_policy": False,
                },
                "ruleset_source_type": "Repository",
                "ruleset_source": fake.full_name,
                "ruleset_id": 7000 + len(fake.rulesets),
            }
        )
    else:
        protection = fake.protection if fake.protection is not None else {"contexts": [], "checks": []}
        protection["contexts"].append(context)
        protection["checks"].append({"context": context, "app_id": app_id})
        fake.protection = protection


@route("repos/get-branch-rules")
def get_branch_rules(fake: FakeGitHub, ctx: Ctx) -> Reply:
    """``GET /repos/{o}/{r}/rules/branches/{branch}``: the rules of active rulesets (default branch only here)."""
    branch = ctx.params["branch"]
    return ctx.page(list(fake.rulesets) if branch == fake.default_branch else [])


@route("repos/get-branch-protection")
def get_branch_protection(fake: FakeGitHub, ctx: Ctx) -> Reply:
    """``GET .../branches/{branch}/protection``: admins only (``fake.protection_admin``), else 404."""
    if not fake.protection_admin:
        raise ApiError(403, "Resource not accessible by integration")
    branch = ctx.params["branch"]
    if branch != fake.default_branch or fake.protection is None:
        raise ApiError(404, "Branch not protected")
    url = f"{fake.repo_api}/branches/{branch}/protection"
    checks = fake.protection
    return Reply(
        200,
        {
            "url": url,
            "required_status_checks": {
                "url": f"{url}/required_status_checks",
                "strict": False,
                "contexts": list(checks["contexts"]),
                "checks": [dict(c) for c in checks["checks"]],
                "contexts_url": f"{url}/required_status_checks/contexts",
            },
        },
    )


@route("actions/get-github-actions-default-workflow-permissions-repository")
def get_workflow_permissions(fake: FakeGitHub, ctx: Ctx) -> Reply:
    """``GET /repos/{o}/{r}/actions/permissions/workflow``."""
    return Reply(
        200, {"default_workflow_permissions": fake.workflow_permissions, "can_approve_pull_request_reviews": False}
    )

"""Render fake state as GitHub REST JSON.

Why a separate module: every object carries dozens of URL fields that the OpenAPI
description marks required.  Keeping the renderers together makes it easy to see what a
response contains, and the strict OpenAPI check flags any field that drifts.
"""

from __future__ import annotations

import base64
import hashlib
import urllib.parse
from typing import TYPE_CHECKING, Any

from .state import EPOCH, CheckRun, Comment, Commit, Issue, Label, Reaction, Status, Team, User, iso

if TYPE_CHECKING:
    from .server import FakeGitHub

JSON = dict[str, Any]


def node_id(kind: str, ident: int | str) -> str:
    """An opaque global id in GitHub's legacy base64 form."""
    return base64.b64encode(f"0:{kind}{ident}".encode()).decode().rstrip("=")


def _q(text: str) -> str:
    return urllib.parse.quote(text, safe="")


def user(fake: FakeGitHub, u: User | str | None) -> JSON | None:
    """``simple-user``."""
    if u is None:
        return None
    if isinstance(u, str):
        u = fake.add_user(u)
    api_url = f"{fake.api}/users/{_q(u.login)}"
    html = f"{fake.web}/apps/{_q(u.login.removesuffix('[bot]'))}" if u.type == "Bot" else f"{fake.web}/{_q(u.login)}"
    return {
        "login": u.login,
        "id": u.id,
        "node_id": node_id(u.type, u.id),
        "avatar_url": f"https://avatars.githubusercontent.com/u/{u.id}?v=4",
        "gravatar_id": "",
        "url": api_url,
        "html_url": html,
        "followers_url": f"{api_url}/followers",
        "following_url": f"{api_url}/following{{/other_user}}",
        "gists_url": f"{api_url}/gists{{/gist_id}}",
        "starred_url": f"{api_url}/starred{{/owner}}{{/repo}}",
        "subscriptions_url": f"{api_url}/subscriptions",
        "organizations_url": f"{api_url}/orgs",
        "repos_url": f"{api_url}/repos",
        "events_url": f"{api_url}/events{{/privacy}}",
        "received_events_url": f"{api_url}/received_events",
        "type": u.type,
        "site_admin": u.site_admin,
        "user_view_type": "public",
    }


def public_user(fake: FakeGitHub, u: User) -> JSON:
    """``public-user`` (``GET /users/{login}``, ``GET /user``); no extra keys allowed."""
    out = user(fake, u)
    assert out is not None
    out.update(
        name=u.name,
        company=None,
        blog="",
        location=None,
        email=None,
        hireable=None,
        bio=None,
        twitter_username=None,
        public_repos=0,
        public_gists=0,
        followers=0,
        following=0,
        created_at=iso(EPOCH),
        updated_at=iso(EPOCH),
    )
    return out


def label(fake: FakeGitHub, lab: Label) -> JSON:
    """``label``."""
    return {
        "id": lab.id,
        "node_id": node_id("Label", lab.id),
        "url": f"{fake.repo_api}/labels/{_q(lab.name)}",
        "name": lab.name,
        "color": lab.color,
        "default": lab.default,
        "description": lab.description,
    }


def _repo_urls(fake: FakeGitHub) -> JSON:
    r = fake.repo_api
    names = {
        "archive_url": "{archive_format}{/ref}",
        "assignees_url": "assignees{/user}",
        "blobs_url": "git/blobs{/sha}",
        "branches_url": "branches{/branch}",
        "collaborators_url": "collaborators{/collaborator}",
        "comments_url": "comments{/number}",
        "commits_url": "commits{/sha}",
        "compare_url": "compare/{base}...{head}",
        "contents_url": "contents/{+path}",
        "contributors_url": "contributors",
        "deployments_url": "deployments",
        "downloads_url": "downloads",
        "events_url": "events",
        "forks_url": "forks",
        "git_commits_url": "git/commits{/sha}",
        "git_refs_url": "git/refs{/sha}",
        "git_tags_url": "git/tags{/sha}",
        "hooks_url": "hooks",
        "issue_comment_url": "issues/comments{/number}",
        "issue_events_url": "issues/events{/number}",
        "issues_url": "issues{/number}",
        "keys_url": "keys{/key_id}",
        "labels_url": "labels{/name}",
        "languages_url": "languages",
        "merges_url": "merges",
        "milestones_url": "milestones{/number}",
        "notifications_url": "notifications{?since,all,participating}",
        "pulls_url": "pulls{/number}",
        "releases_url": "releases{/id}",
        "stargazers_url": "stargazers",
        "statuses_url": "statuses/{sha}",
        "subscribers_url": "subscribers",
        "subscription_url": "subscription",
        "tags_url": "tags",
        "teams_url": "teams",
        "trees_url": "git/trees{/sha}",
    }
    return {k: f"{r}/{v}" for k, v in names.items()}


def minimal_repo(fake: FakeGitHub) -> JSON:
    """``minimal-repository``."""
    return {
        "id": fake.repo_id,
        "node_id": node_id("Repository", fake.repo_id),
        "name": fake.repo,
        "full_name": fake.full_name,
        "owner": user(fake, fake.owner),
        "private": fake.private,
        "html_url": fake.repo_web,
        "description": None,
        "fork": False,
        "url": fake.repo_api,
        **_repo_urls(fake),
    }


def permission_flags(role: str) -> dict[str, bool]:
    """The ``permissions`` object for a repository role (roles are cumulative)."""
    order = ("none", "read", "triage", "write", "maintain", "admin")
    rank = order.index(role)
    return {
        "admin": rank >= order.index("admin"),
        "maintain": rank >= order.index("maintain"),
        "push": rank >= order.index("write"),
        "triage": rank >= order.index("triage"),
        "pull": rank >= order.index("read"),
    }


def repository(fake: FakeGitHub) -> JSON:
    """A superset of ``repository`` and ``full-repository``."""
    host = urllib.parse.urlsplit(fake.web).netloc
    perm = fake.permission_of(fake.login)
    created = iso(EPOCH)
    return {
        **minimal_repo(fake),
        "clone_url": f"{fake.repo_web}.git",
        "git_url": f"git://{host}/{fake.full_name}.git",
        "ssh_url": f"git@{host}:{fake.full_name}.git",
        "svn_url": fake.repo_web,
        "mirror_url": None,
        "homepage": None,
        "language": "Python",
        "forks": 0,
        "forks_count": 0,
        "stargazers_count": 0,
        "watchers": 0,
        "watchers_count": 0,
        "size": 1,
        "default_branch": fake.default_branch,
        "open_issues": fake.open_issue_count(),
        "open_issues_count": fake.open_issue_count(),
        "is_template": False,
        "topics": [],
        "has_issues": True,
        "has_projects": False,
        "has_wiki": False,
        "has_pages": False,
        "has_downloads": True,
        "has_discussions": False,
        "archived": False,
        "disabled": False,
        "visibility": "private" if fake.private else "public",
        "pushed_at": created,
        "created_at": created,
        "updated_at": created,
        "permissions": permission_flags(perm),
        "allow_rebase_merge": True,
        "allow_squash_merge": True,
        "allow_merge_commit": True,
        "allow_auto_merge": False,
        "delete_branch_on_merge": False,
        "license": None,
        "network_count": 0,
        "subscribers_count": 0,
    }


def issue(fake: FakeGitHub, iss: Issue) -> JSON:
    """``issue`` (pull requests carry a ``pull_request`` object, as on GitHub)."""
    url = f"{fake.repo_api}/issues/{iss.number}"
    kind = "pull" if iss.is_pull else "issues"
    blocking = fake.blocking_of(iss)
    blocked_by = [fake.issue_by_id(i) for i in iss.blocked_by]
    out: JSON = {
        "id": iss.id,
        "node_id": node_id("Issue", iss.id),
        "url": url,
        "repository_url": fake.repo_api,
        "labels_url": f"{url}/labels{{/name}}",
        "comments_url": f"{url}/comments",
        "events_url": f"{url}/events",
        "timeline_url": f"{url}/timeline",
        "html_url": f"{fake.repo_web}/{kind}/{iss.number}",
        "number": iss.number,
        "state": iss.state,
        "state_reason": iss.state_reason,
        "title": iss.title,
        "body": iss.body,
        "user": user(fake, iss.user),
        "labels": [label(fake, fake.labels[n.lower()]) for n in iss.labels],
        "assignee": user(fake, iss.assignees[0]) if iss.assignees else None,
        "assignees": [user(fake, a) for a in iss.assignees],
        "milestone": None,
        "locked": iss.locked,
        "active_lock_reason": None,
        "comments": fake.comment_count(iss.number),
        "closed_at": iso(iss.closed_at),
        "created_at": iso(iss.created_at),
        "updated_at": iso(iss.updated_at),
        "closed_by": user(fake, iss.closed_by),
        "author_association": fake.author_association(iss.user),
        "performed_via_github_app": None,
        "issue_dependencies_summary": {
            "blocked_by": sum(1 for b in blocked_by if b is not None and b.state == "open"),
            "blocking": sum(1 for b in blocking if b.state == "open"),
            "total_blocked_by": len(iss.blocked_by),
            "total_blocking": len(blocking),
        },
    }
    if iss.pull is not None:
        pr_url = f"{fake.repo_api}/pulls/{iss.number}"
        out["draft"] = iss.pull.draft
        out["pull_request"] = {
            "url": pr_url,
            "html_url": out["html_url"],
            "diff_url": f"{out['html_url']}.diff",
            "patch_url": f"{out['html_url']}.patch",
            "merged_at": iso(iss.pull.merged_at),
        }
    return out


def comment(fake: FakeGitHub, c: Comment) -> JSON:
    """``issue-comment``."""
    iss = fake.issues[c.issue_number]
    kind = "pull" if iss.is_pull else "issues"
    return {
        "id": c.id,
        "node_id": node_id("IssueComment", c.id),
        "url": f"{fake.repo_api}/issues/comments/{c.id}",
        "html_url": f"{fake.repo_web}/{kind}/{c.issue_number}#issuecomment-{c.id}",
        "issue_url": f"{fake.repo_api}/issues/{c.issue_number}",
        "body": c.body,
        "user": user(fake, c.user),
        "created_at": iso(c.created_at),
        "updated_at": iso(c.updated_at),
        "author_association": fake.author_association(c.user),
        "performed_via_github_app": None,
    }


def _branch_side(fake: FakeGitHub, ref: str, sha: str, *, fork: str | None = None) -> JSON:
    if fork is None:
        return {
            "label": f"{fake.owner}:{ref}",
            "ref": ref,
            "sha": sha,
            "user": user(fake, fake.owner),
            "repo": repository(fake),
        }
    owner = fork.split("/", 1)[0]
    return {"label": f"{owner}:{ref}", "ref": ref, "sha": sha, "user": user(fake, owner), "repo": fork_repo(fake, fork)}


def fork_repo(fake: FakeGitHub, full_name: str) -> JSON:
    """``repository`` of a fork of the fake's repository (the head side of a pull request from a fork)."""
    owner, name = full_name.split("/", 1)
    base = repository(fake)
    api = f"{fake.api}/repos/{full_name}"
    urls = {k: v.replace(fake.repo_api, api, 1) for k, v in base.items() if k.endswith("_url") and isinstance(v, str)}
    host = urllib.parse.urlsplit(fake.web).netloc
    return {
        **base,
        **urls,
        "id": fake.repo_id + 1 + sum(full_name.encode()),
        "node_id": node_id("Repository", fake.repo_id + 1 + sum(full_name.encode())),
        "name": name,
        "full_name": full_name,
        "owner": user(fake, owner),
        "html_url": f"{fake.web}/{full_name}",
        "url": api,
        "fork": True,
        "clone_url": f"{fake.web}/{full_name}.git",
        "git_url": f"git://{host}/{full_name}.git",
        "ssh_url": f"git@{host}:{full_name}.git",
        "svn_url": f"{fake.web}/{full_name}",
        "permissions": permission_flags("read"),
    }


def pull(fake: FakeGitHub, iss: Issue) -> JSON:
    """``pull-request`` (also valid as ``pull-request-simple`` in lists)."""
    pr = iss.pull
    assert pr is not None
    base = issue(fake, iss)
    url = f"{fake.repo_api}/pulls/{iss.number}"
    html = f"{fake.repo_web}/pull/{iss.number}"
    links = {
        "self": url,
        "html": html,
        "issue": base["url"],
        "comments": base["comments_url"],
        "review_comments": f"{url}/comments",
        "review_comment": f"{fake.repo_api}/pulls/comments{{/number}}",
        "commits": f"{url}/commits",
        "statuses": f"{fake.repo_api}/statuses/{pr.head_sha}",
    }
    return {
        "url": url,
        "id": iss.id + 500_000_000,
        "node_id": node_id("PullRequest", iss.id),
        "html_url": html,
        "diff_url": f"{html}.diff",
        "patch_url": f"{html}.patch",
        "issue_url": base["url"],
        "commits_url": links["commits"],
        "review_comments_url": links["review_comments"],
        "review_comment_url": links["review_comment"],
        "comments_url": base["comments_url"],
        "statuses_url": links["statuses"],
        "number": iss.number,
        "state": iss.state,
        "locked": iss.locked,
        "title": iss.title,
        "user": base["user"],
        "body": iss.body,
        "labels": base["labels"],
        "milestone": None,
        "active_lock_reason": None,
        "created_at": base["created_at"],
        "updated_at": base["updated_at"],
        "closed_at": base["closed_at"],
        "merged_at": iso(pr.merged_at),
        "merge_commit_sha": fake_merge_sha(iss) if pr.merged else None,
        "assignee": base["assignee"],
        "assignees": base["assignees"],
        "requested_reviewers": [],
        "requested_teams": [],
        "head": _branch_side(fake, pr.head_ref, pr.head_sha, fork=pr.head_repo),
        "base": _branch_side(fake, pr.base_ref, fake.branch_sha(pr.base_ref)),
        "_links": {k: {"href": v} for k, v in links.items()},
        "author_association": base["author_association"],
        "auto_merge": None,
        "draft": pr.draft,
        "merged": pr.merged,
        "mergeable": None if pr.merged else True,
        "rebaseable": None if pr.merged else True,
        "mergeable_state": "unknown" if pr.merged else "clean",
        "merged_by": user(fake, pr.merged_by),
        "comments": base["comments"],
        "review_comments": 0,
        "maintainer_can_modify": False,
        "commits": len(pr.commits),
        "additions": 0,
        "deletions": 0,
        "changed_files": 0,
    }


def fake_merge_sha(iss: Issue) -> str:
    """Deterministic merge commit id for a merged PR."""
    return hashlib.sha1(f"merge-{iss.number}".encode(), usedforsecurity=False).hexdigest()


def commit(fake: FakeGitHub, c: Commit) -> JSON:
    """``commit``."""
    git_user = {"name": c.author, "email": f"{c.author}@users.noreply.example", "date": iso(c.date)}
    return {
        "sha": c.sha,
        "node_id": node_id("Commit", c.sha),
        "url": f"{fake.repo_api}/commits/{c.sha}",
        "html_url": f"{fake.repo_web}/commit/{c.sha}",
        "comments_url": f"{fake.repo_api}/commits/{c.sha}/comments",
        "commit": {
            "url": f"{fake.repo_api}/git/commits/{c.sha}",
            "author": git_user,
            "committer": git_user,
            "message": c.message,
            "comment_count": 0,
            "tree": {"sha": c.sha[::-1], "url": f"{fake.repo_api}/git/trees/{c.sha[::-1]}"},
            "verification": {
                "verified": False,
                "reason": "unsigned",
                "payload": None,
                "signature": None,
                "verified_at": None,
            },
        },
        "author": user(fake, c.author),
        "committer": user(fake, c.author),
        "parents": [
            {"sha": p, "url": f"{fake.repo_api}/commits/{p}", "html_url": f"{fake.repo_web}/commit/{p}"}
            for p in c.parents
        ],
    }


def status(fake: FakeGitHub, s: Status) -> JSON:
    """``status`` (one entry of ``GET /commits/{ref}/statuses``)."""
    creator = user(fake, s.creator)
    assert creator is not None
    return {
        "url": f"{fake.repo_api}/statuses/{s.sha}",
        "avatar_url": creator["avatar_url"],
        "id": s.id,
        "node_id": node_id("StatusContext", s.id),
        "state": s.state,
        "description": s.description,
        "target_url": s.target_url,
        "context": s.context,
        "created_at": iso(s.created_at),
        "updated_at": iso(s.updated_at),
        "creator": creator,
    }


def simple_status(fake: FakeGitHub, s: Status) -> JSON:
    """``simple-commit-status`` (entries of the combined status)."""
    out = status(fake, s)
    del out["creator"]
    out["required"] = False
    return out


def app(fake: FakeGitHub, login: str) -> JSON:
    """``integration``: the GitHub App behind a bot account (``parkbot[bot]`` is the App ``parkbot``)."""
    bot = fake.add_user(login)
    slug = bot.login.removesuffix("[bot]")
    owner = user(fake, fake.owner)
    return {
        "id": 900_000 + bot.id % 100_000,
        "slug": slug,
        "node_id": node_id("Integration", bot.id),
        "client_id": f"Iv1.{hashlib.sha1(slug.encode(), usedforsecurity=False).hexdigest()[:16]}",
        "owner": owner,
        "name": slug,
        "description": None,
        "external_url": f"https://{slug}.example.com",
        "html_url": f"{fake.web}/apps/{_q(slug)}",
        "created_at": iso(EPOCH),
        "updated_at": iso(EPOCH),
        "permissions": {"checks": "write", "issues": "write", "metadata": "read", "pull_requests": "write"},
        "events": [],
    }


def check_run(fake: FakeGitHub, run: CheckRun) -> JSON:
    """``check-run``; ``pull_requests`` are the open pull requests whose head is the run's commit."""
    url = f"{fake.repo_api}/check-runs/{run.id}"
    pulls = [
        iss
        for iss in fake.issues.values()
        if iss.pull is not None and iss.state == "open" and iss.pull.head_sha == run.head_sha
    ]
    repo_ref = {"id": fake.repo_id, "url": fake.repo_api, "name": fake.repo}
    return {
        "id": run.id,
        "head_sha": run.head_sha,
        "node_id": node_id("CheckRun", run.id),
        "external_id": run.external_id,
        "url": url,
        "html_url": f"{fake.repo_web}/runs/{run.id}",
        "details_url": run.details_url,
        "status": run.status,
        "conclusion": run.conclusion,
        "started_at": iso(run.started_at),
        "completed_at": iso(run.completed_at),
        "output": {
            "title": run.title,
            "summary": run.summary,
            "text": run.text,
            "annotations_count": 0,
            "annotations_url": f"{url}/annotations",
        },
        "name": run.name,
        "check_suite": {"id": 50_000_000 + run.id % 1_000_000},
        "app": app(fake, run.app),
        "pull_requests": [
            {
                "id": iss.id,
                "number": iss.number,
                "url": f"{fake.repo_api}/pulls/{iss.number}",
                "head": {"ref": iss.pull.head_ref, "sha": iss.pull.head_sha, "repo": repo_ref},
                "base": {"ref": iss.pull.base_ref, "sha": fake.branch_sha(iss.pull.base_ref), "repo": repo_ref},
            }
            for iss in pulls
            if iss.pull is not None
        ],
    }


def _git_blob_sha(data: bytes) -> str:
    return hashlib.sha1(b"blob %d\0" % len(data) + data, usedforsecurity=False).hexdigest()


def _content_common(fake: FakeGitHub, path: str, ref: str, kind: str, sha: str, size: int) -> JSON:
    url = f"{fake.repo_api}/contents/{urllib.parse.quote(path)}?ref={_q(ref)}"
    html = f"{fake.repo_web}/{'blob' if kind == 'file' else 'tree'}/{ref}/{urllib.parse.quote(path)}"
    git_url = f"{fake.repo_api}/git/{'blobs' if kind == 'file' else 'trees'}/{sha}"
    return {
        "type": kind,
        "size": size,
        "name": path.rsplit("/", 1)[-1],
        "path": path,
        "sha": sha,
        "url": url,
        "git_url": git_url,
        "html_url": html,
        "download_url": (
            f"https://raw.githubusercontent.com/{fake.full_name}/{ref}/{urllib.parse.quote(path)}"
            if kind == "file"
            else None
        ),
        "_links": {"self": url, "git": git_url, "html": html},
    }


def content_file(fake: FakeGitHub, path: str, ref: str, text: str) -> JSON:
    """``content-file``: base64 wrapped at 60 columns, exactly like GitHub."""
    data = text.encode("utf-8")
    b64 = base64.b64encode(data).decode()
    wrapped = "".join(b64[i : i + 60] + "\n" for i in range(0, len(b64), 60))
    out = _content_common(fake, path, ref, "file", _git_blob_sha(data), len(data))
    out.update(content=wrapped, encoding="base64")
    return out


def content_entry(fake: FakeGitHub, path: str, ref: str, text: str | None) -> JSON:
    """One ``content-directory`` item (``text`` None for a sub-directory)."""
    if text is None:
        return _content_common(
            fake, path, ref, "dir", hashlib.sha1(path.encode(), usedforsecurity=False).hexdigest(), 0
        )
    data = text.encode("utf-8")
    return _content_common(fake, path, ref, "file", _git_blob_sha(data), len(data))


def git_tree(fake: FakeGitHub, sha: str, entries: list[tuple[str, str | None]], *, truncated: bool = False) -> JSON:
    """``git-tree``: blobs carry their size and blob sha; sub-trees (``text`` None) have no size."""
    items: list[JSON] = []
    for path, text in entries:
        if text is None:
            tree_sha = hashlib.sha1(path.encode(), usedforsecurity=False).hexdigest()
            items.append(
                {
                    "path": path,
                    "mode": "040000",
                    "type": "tree",
                    "sha": tree_sha,
                    "url": f"{fake.repo_api}/git/trees/{tree_sha}",
                }
            )
        else:
            data = text.encode("utf-8")
            blob_sha = _git_blob_sha(data)
            items.append(
                {
                    "path": path,
                    "mode": "100644",
                    "type": "blob",
                    "sha": blob_sha,
                    "size": len(data),
                    "url": f"{fake.repo_api}/git/blobs/{blob_sha}",
                }
            )
    return {"sha": sha, "url": f"{fake.repo_api}/git/trees/{sha}", "truncated": truncated, "tree": items}


def _team_url(fake: FakeGitHub, t: Team) -> str:
    # Real GitHub answers /organizations/{org_id}/team/{team_id}; the slug form is an
    # equivalent documented route and lets PyGithub's Team objects navigate this fake.
    return f"{fake.api}/orgs/{_q(t.org)}/teams/{_q(t.slug)}"


def team_simple(fake: FakeGitHub, t: Team) -> JSON:
    """``team-simple``."""
    url = _team_url(fake, t)
    return {
        "id": t.id,
        "node_id": node_id("Team", t.id),
        "url": url,
        "members_url": f"{url}/members{{/member}}",
        "name": t.name,
        "description": t.description,
        "permission": "pull",
        "privacy": "closed",
        "notification_setting": "notifications_enabled",
        "html_url": f"{fake.web}/orgs/{_q(t.org)}/teams/{_q(t.slug)}",
        "repositories_url": f"{url}/repos",
        "slug": t.slug,
        "type": "organization",
    }


def team(fake: FakeGitHub, t: Team) -> JSON:
    """``team`` (child team lists)."""
    parent = fake.teams.get((t.org.lower(), t.parent.lower())) if t.parent else None
    return {
        **team_simple(fake, t),
        "permissions": {"pull": True, "triage": False, "push": False, "maintain": False, "admin": False},
        "parent": team_simple(fake, parent) if parent else None,
    }


def organization(fake: FakeGitHub, org: User) -> JSON:
    """``organization-full`` / ``team-organization``."""
    org_api = f"{fake.api}/orgs/{_q(org.login)}"
    return {
        "login": org.login,
        "id": org.id,
        "node_id": node_id("Organization", org.id),
        "url": org_api,
        "repos_url": f"{org_api}/repos",
        "events_url": f"{org_api}/events",
        "hooks_url": f"{org_api}/hooks",
        "issues_url": f"{org_api}/issues",
        "members_url": f"{org_api}/members{{/member}}",
        "public_members_url": f"{org_api}/public_members{{/member}}",
        "avatar_url": f"https://avatars.githubusercontent.com/u/{org.id}?v=4",
        "description": None,
        "name": org.name or org.login,
        "html_url": f"{fake.web}/{_q(org.login)}",
        "has_organization_projects": False,
        "has_repository_projects": False,
        "public_repos": 1,
        "public_gists": 0,
        "followers": 0,
        "following": 0,
        "type": "Organization",
        "created_at": iso(EPOCH),
        "updated_at": iso(EPOCH),
        "archived_at": None,
    }


def team_full(fake: FakeGitHub, t: Team) -> JSON:
    """``team-full`` (``GET /orgs/{org}/teams/{slug}``)."""
    out = team(fake, t)
    out.update(
        members_count=len(fake.team_members(t)),
        repos_count=1,
        created_at=iso(EPOCH),
        updated_at=iso(EPOCH),
        organization=organization(fake, fake.add_user(t.org, type="Organization")),
    )
    return out


def team_membership(fake: FakeGitHub, t: Team, login: str, role: str) -> JSON:
    """``team-membership``."""
    return {"url": f"{_team_url(fake, t)}/memberships/{_q(login)}", "role": role, "state": "active"}


def rate_limit(fake: FakeGitHub) -> JSON:
    """``rate-limit-overview``; only ``core`` is tracked, the others are static."""
    core = {
        "limit": fake.rate_limit,
        "remaining": fake.rate_remaining,
        "reset": fake.rate_reset,
        "used": fake.rate_limit - fake.rate_remaining,
        "resource": "core",
    }
    static = {"limit": 30, "remaining": 30, "reset": fake.rate_reset, "used": 0}
    return {
        "resources": {
            "core": core,
            "search": {**static, "resource": "search"},
            "graphql": {**static, "limit": 5000, "remaining": 5000, "resource": "graphql"},
        },
        "rate": core,
    }


# ghcost: reactions -----------------------------------------------------------------------------------


def reaction(fake: FakeGitHub, r: Reaction) -> JSON:
    """``reaction``."""
    return {
        "id": r.id,
        "node_id": node_id("Reaction", r.id),
        "user": user(fake, r.user),
        "content": r.content,
        "created_at": iso(r.created_at),
    }


def branch_short(fake: FakeGitHub, name: str) -> dict[str, Any]:
    """A ``branch-short`` object: the name, its head commit and whether it is protected."""
    sha = fake.branches[name]
    return {"name": name, "commit": {"sha": sha, "url": f"{fake.repo_api}/commits/{sha}"}, "protected": False}

"""``parkbot init``: set a repository up for parkbot (see :mod:`parkbot.setup_files`)."""

from __future__ import annotations

import json
import os
import re
import sys
from pathlib import Path
from typing import Any

import click

from parkbot.cli.common import fail, json_option
from parkbot.core.errors import InvalidInput, ParkbotError

#: ``owner/name`` of a GitHub remote URL (https or ssh).
GITHUB_REMOTE = re.compile(r"github\.com[:/](?P<repo>[A-Za-z0-9_.-]+/[A-Za-z0-9_.-]+?)(?:\.git)?/?$")

GITHUB_ADVICE = [
    "Protect your default branch (branch protection or a ruleset): require the status check "
    "parkbot/decisions, from GitHub Actions (or the App parkbot runs as), also for the merge queue; "
    "require a review, so nobody changes .github/parkbot.yml unseen.",
    "Commit and push .github/: the workflows run from the default branch.",
]
GIT_ADVICE = [
    "Gate a branch before you merge it: parkbot gate --ref BRANCH (exit 1 while a decision blocks it).",
    "On GitHub, .github/workflows/gate-git-backlog.yml runs that gate on every pull request: set PARKBOT_VERSION "
    "in it to your release, commit it, and make its check, parkbot gate, a required status check.",
    "Share the backlog with your team: parkbot sync (it needs a remote; git push origin refs/parkbot/backlog "
    "works too when one machine writes).",
    "With answers: {require_signed: true}, protect your default branch with required reviews, so nobody "
    "adds a signing key or an owner unseen (docs/git-backlog.md).",
]


def _top(repo: str) -> Path:
    from parkbot.trackers.git import NoWorkingTree, working_tree

    try:
        return working_tree(repo)
    except NoWorkingTree as missing:
        if missing.bare:
            raise InvalidInput(f"{repo} is a bare repository: run parkbot init in a working tree") from None
        raise InvalidInput(f"{repo} is not inside a git repository: run parkbot init in your repository") from None


def _github_repository(top: Path) -> str | None:
    """``GITHUB_REPOSITORY``, else the ``origin`` remote when it is on github.com."""
    if os.environ.get("GITHUB_REPOSITORY"):
        return os.environ["GITHUB_REPOSITORY"].strip()
    from parkbot.trackers.git import origin_url

    url, _ = origin_url(top)
    if url is None:
        return None
    found = GITHUB_REMOTE.search(url)
    return found.group("repo") if found else None


def _labels(top: Path) -> tuple[list[dict[str, str]], str | None]:
    """Create parkbot's labels when there is a token; the outcome per label, or why none was created."""
    if not os.environ.get("GITHUB_TOKEN"):
        return [], "not created: set GITHUB_TOKEN (and run parkbot init again) to create parkbot's labels"
    repository = _github_repository(top)
    if repository is None:
        return [], "not created: set GITHUB_REPOSITORY=owner/name (no github.com remote named origin)"
    from parkbot.trackers.github import client as github_client
    from parkbot.trackers.github import create_standing_labels

    client = github_client.client_from_env({**os.environ, "GITHUB_REPOSITORY": repository})
    return [{"name": o.name, "action": o.action} for o in create_standing_labels(client)], None


def _text(data: dict[str, Any]) -> str:
    lines = []
    width = max(len(f["action"]) for f in data["files"])
    for file in data["files"]:
        note = "  (changed since parkbot init wrote it: --force replaces it)" if file["action"] == "kept" else ""
        lines.append(f"  {file['action']:<{width}}  {file['path']}{note}")
    if data["labels"]:
        created = [label["name"] for label in data["labels"] if label["action"] == "created"]
        existing = [label["name"] for label in data["labels"] if label["action"] == "exists"]
        if created:
            lines.append(f"  labels created: {', '.join(created)}")
        if existing:
            lines.append(f"  labels already there: {', '.join(existing)}")
    elif data["labels_note"]:
        lines.append(f"  labels {data['labels_note']}")
    head = (
        "parkbot init changed nothing: this repository is already set up."
        if not data["changed"]
        else f"parkbot init set this repository up for the {data['mode']} backend:"
    )
    lines = [head, *lines]
    if data["warnings"]:
        lines += [f"warning: {w}" for w in data["warnings"]]
    lines.append("Next:")
    lines += [f"  - {advice}" for advice in data["advice"]]
    return "\n".join(lines)


@click.command()
@click.option("--github", "mode", flag_value="github", help="Decisions as GitHub issues: the workflows and labels.")
@click.option("--git", "mode", flag_value="git", default=True, help="Decisions on the embedded git backlog (default).")
@click.option(
    "--action",
    default=None,
    help="The parkbot action the workflows use, as `uses:` names it, pinned to a full commit sha (see the "
    "example; default: a placeholder to replace, see docs/github-actions.md).",
)
@click.option(
    "--action-version",
    "release",
    default=None,
    help="The release that commit is (v0.1.0), written as a comment after the pin for Dependabot and Renovate.",
)
@click.option("--force", is_flag=True, help="Replace files you changed since parkbot init wrote them.")
@click.option("--repo", default=".", show_default=True, type=click.Path(file_okay=False), help="The repository.")
@json_option
def init(mode: str, action: str | None, release: str | None, force: bool, repo: str, as_json: bool) -> None:
    """Set a repository up for parkbot: its configuration, workflows and labels; safe to run again.

    Writes .github/parkbot.yml (the owner of * in CODEOWNERS as the default owner, with comments, and
    a first line that points editors at .github/parkbot.schema.json, which it writes too). With
    --github also the workflows of docs/workflows/ in .github/workflows/ and, with GITHUB_TOKEN set,
    parkbot's labels on the repository (GITHUB_REPOSITORY, or the github.com remote origin). Then it
    says what to set in branch protection. Running it again changes nothing and says so; a file you
    changed is kept unless --force.

    \b
    Example:
      parkbot init                                   # the embedded git backlog
      GITHUB_TOKEN=... parkbot init --github \\
          --action OWNER/REPO/actions/parkbot@<full commit sha> --action-version v0.1.0
    """
    from parkbot.setup_files import FULL_SHA, check_action, plan, write

    try:
        top = _top(repo)
        if release is not None and action is None:
            raise InvalidInput("--action-version names the release of --action: give --action as well")
        if action is not None:
            action = check_action(action, release)
        github = mode == "github"
        written = write(top, plan(top, "github" if github else "git", action), force=force)
        labels, labels_note = _labels(top) if github else ([], None)
    except ParkbotError as exc:
        fail(exc, as_json=as_json)
    warnings = []
    if github and action is None:
        warnings.append(
            "the workflows use OWNER/REPO/actions/parkbot@v0: run parkbot init --github --action "
            "OWNER/REPO/actions/parkbot@<full commit sha> (docs/github-actions.md#pinning-the-action)"
        )
    elif action is not None and not FULL_SHA.search(action.split(" #", 1)[0]):
        warnings.append(f"{action} is not pinned to a full commit sha: a tag can move (docs/github-actions.md)")
    elif action is not None and release is None:
        warnings.append("give --action-version (the release of that commit): update tools read it from the comment")
    files = [{"path": w.path, "action": w.action} for w in written]
    changed = any(f["action"] in ("created", "updated", "replaced") for f in files) or any(
        label["action"] == "created" for label in labels
    )
    data: dict[str, Any] = {
        "mode": "github" if github else "git",
        "changed": changed,
        "files": files,
        "labels": labels,
        "labels_note": labels_note,
        "warnings": warnings,
        "advice": GITHUB_ADVICE if github else GIT_ADVICE,
    }
    click.echo(json.dumps(data, indent=2) if as_json else _text(data))
    if not as_json:
        _doctor(top, github)
    sys.exit(0)


def _doctor(top: Path, github: bool) -> None:
    """End with ``parkbot doctor`` when this parkbot has it: what is still missing, checked for real."""
    from parkbot.cli import COMMANDS, cli

    if "doctor" not in COMMANDS:
        return
    click.echo("")
    args = ["doctor", "--repo", str(top), *(["--backend", "github"] if github else [])]
    try:
        cli.main(args, prog_name="parkbot", standalone_mode=False)
    except click.ClickException as exc:
        click.echo(f"parkbot doctor: {exc.format_message()}", err=True)
    except SystemExit:
        pass  # doctor printed its findings; init's own outcome stands

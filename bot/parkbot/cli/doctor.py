"""``parkbot doctor``: does the gate protect anything? Reads the repository as it is, judges with the core.

Exit codes: 0 the gate is enforced · 1 it is advisory (each finding says what to change) · 2 bad input
(a missing setting) · 4 GitHub could not be read.
"""

from __future__ import annotations

import json
import os
import sys
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import click

from parkbot.api.failure import failure_of
from parkbot.core.config import CONFIG_PATH, Config, parse_config
from parkbot.core.doctor import (
    ACTIONS_LOGIN,
    GITHUB_ACTIONS_APP_ID,
    DeclaredPermissions,
    Diagnosis,
    GitFacts,
    RepositoryFacts,
    diagnose_git,
    diagnose_github,
)
from parkbot.core.errors import BackendFailure, InvalidInput, ParkbotError

MARKS = {"ok": "ok      ", "advisory": "ADVISORY", "warning": "warning "}


def github_facts(env: Mapping[str, str], mode: str, repo: str = ".") -> RepositoryFacts:
    """Read what protects the repository (``GITHUB_REPOSITORY``, else the checkout's ``origin``) through the
    GitHub adapter."""
    from parkbot.backends import github_env, repository_from_origin
    from parkbot.trackers.github import IssueStore, protection
    from parkbot.trackers.github import client as github_client

    if mode == "app":
        from parkbot.trackers.github import GitHubApp, app_credentials

        credentials = app_credentials(env)
        repository = (env.get("GITHUB_REPOSITORY") or "").strip()
        if not repository:
            inferred, why = repository_from_origin(repo, credentials.api_url)
            if inferred is None:
                raise InvalidInput(f"GITHUB_REPOSITORY is not set ('owner/name'), and {why}")
            repository = inferred
        if repository.count("/") != 1:
            raise InvalidInput("GITHUB_REPOSITORY must be 'owner/name' (the repository to check)")
        app = GitHubApp(credentials)
        identity = app.identity()
        client = app.client(repository)
        expected_app: int | None = identity.app_id
        default_login = identity.login
    else:
        client = github_client.client_from_env(github_env(env, repo))
        expected_app = GITHUB_ACTIONS_APP_ID
        default_login = ACTIONS_LOGIN
    store = IssueStore(client)
    branch = protection.default_branch(client)
    config_problem = None
    config = Config()
    text = store.read_file(CONFIG_PATH)
    if text is not None:
        try:
            config = parse_config(text, CONFIG_PATH)
        except InvalidInput as exc:
            config_problem = exc.message
    required = protection.ruleset_checks(client, branch)
    protected = protection.protection_checks(client, branch)
    return RepositoryFacts(
        repository=client.repository,
        mode="app" if mode == "app" else "action",
        default_branch=branch,
        required=tuple(required + (protected or [])),
        protection_readable=protected is not None,
        expected_app_id=expected_app,
        token_login=store.token_login(),
        expected_login=config.bot_login or default_login,
        config_problem=config_problem,
        workflow_permissions=protection.workflow_permissions(client) if mode == "action" else None,
        declared_permissions=_declared(client, branch) if mode == "action" else None,
    )


def _declared(client: Any, branch: str) -> tuple[DeclaredPermissions, ...] | None:
    from parkbot.trackers.github import protection

    found = protection.declared_permissions(client, branch)
    return tuple(found) if found is not None else None


def git_facts(repo: str) -> GitFacts:
    """What the working tree's configuration says about signed answers."""
    from parkbot.config_file import find_config, load_config
    from parkbot.trackers.git import find_repository

    top = Path(find_repository(repo).working_tree_dir or repo)
    found = find_config(repo)
    try:
        config = load_config(found) if found is not None else Config()
    except InvalidInput as exc:
        return GitFacts(False, "", False, config_problem=exc.message)
    signers = top / config.answers.allowed_signers
    return GitFacts(config.answers.require_signed, config.answers.allowed_signers, signers.is_file())


def render(diagnosis: Diagnosis, where: str) -> tuple[dict[str, Any], str]:
    data = {
        "repository": where,
        "verdict": diagnosis.verdict,
        "exit_code": diagnosis.exit_code,
        "findings": [{"level": f.level, "topic": f.topic, "message": f.message} for f in diagnosis.findings],
    }
    lines = [f"parkbot doctor: {where}: the gate is {diagnosis.verdict}"]
    lines += [f"  {MARKS[f.level]} {f.topic}: {f.message}" for f in diagnosis.findings]
    return data, "\n".join(lines)


@click.command("doctor")
@click.option(
    "--backend",
    type=click.Choice(["github", "git"]),
    envvar="PARKBOT_BACKEND",
    default="git",
    show_default=True,
    help="Where decisions live (env PARKBOT_BACKEND): the embedded git backlog, or GitHub issues.",
)
@click.option(
    "--mode",
    type=click.Choice(["action", "app"]),
    default=None,
    help="How parkbot runs on GitHub: the action (GITHUB_TOKEN) or the App (PARKBOT_APP_ID set: the default then).",
)
@click.option("--repo", default=".", show_default=True, type=click.Path(file_okay=False), help="The git checkout.")
@click.option("--json", "as_json", is_flag=True, help="Print one JSON object on stdout, for machines.")
def doctor(backend: str, mode: str | None, repo: str, as_json: bool) -> None:
    """Say whether the gate actually protects anything, and what to change where it does not.

    On GitHub it reads the default branch's protection and active rulesets (is parkbot/decisions required
    from the App that publishes it: GitHub Actions in action mode, parkbot's App in App mode?), the
    workflows' default token permissions, the configuration on the default branch and the token's identity.
    On the git backlog it checks answers.require_signed and the allowed-signers file.

    \b
    Exit codes: 0 the gate is enforced, 1 it is advisory, 2 bad input, 4 GitHub could not be read.
    Example:
      parkbot doctor                                                  # the git backlog here
      GITHUB_REPOSITORY=acme/widgets GITHUB_TOKEN=$(gh auth token) parkbot doctor --backend github
    """
    env = os.environ
    try:
        if backend == "git":
            diagnosis, where = diagnose_git(git_facts(repo)), str(Path(repo).resolve())
        else:
            chosen = mode or ("app" if env.get("PARKBOT_APP_ID") else "action")
            facts = github_facts(env, chosen, repo)
            diagnosis, where = diagnose_github(facts), facts.repository
            if diagnosis.unreadable:
                raise BackendFailure(f"cannot tell whether the gate is enforced: {diagnosis.unreadable}")
    except ParkbotError as exc:
        if as_json:
            click.echo(json.dumps(failure_of(exc), indent=2))
        click.echo(f"parkbot doctor: {exc.message}", err=True)
        sys.exit(int(exc.exit_code))
    data, text = render(diagnosis, where)
    click.echo(json.dumps(data, indent=2) if as_json else text)
    sys.exit(diagnosis.exit_code)

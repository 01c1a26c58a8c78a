"""What protects a repository's default branch, as GitHub says: read for ``parkbot doctor``.

Three reads, each as one retried unit: the repository (its default branch), the rules that apply to the
branch (``GET /repos/{o}/{r}/rules/branches/{branch}``: every *active* ruleset, readable with read access),
and the branch protection (``GET .../branches/{branch}/protection``: needs the Administration permission,
so "could not read" is a fact of its own, not "unprotected"). Also the workflows' default token
permissions (``GET .../actions/permissions/workflow``). No rule here: :mod:`parkbot.core.doctor` judges.
"""

from __future__ import annotations

from typing import Any
from urllib.parse import quote

from github import GithubException

from parkbot.core.doctor import DeclaredPermissions, RequiredCheck
from parkbot.core.errors import BackendFailure
from parkbot.trackers.github.client import PER_PAGE, GitHubClient, backend_failure


def _get(
    client: GitHubClient, what: str, path: str, parameters: dict[str, Any] | None = None
) -> dict[str, Any] | list[Any]:
    url = f"{client.settings.api_url}/repos/{client.repository}{path}"

    def get(attempt: int) -> Any:
        _, data = client.github.requester.requestJsonAndCheck("GET", url, parameters=parameters)
        return data

    try:
        result: dict[str, Any] | list[Any] = client.transport.run(what, get)
    except GithubException as exc:
        raise backend_failure(exc, what, client.transport) from None
    return result


def default_branch(client: GitHubClient) -> str:
    """The repository's default branch."""
    data = _get(client, "read the repository", "")
    branch = data.get("default_branch") if isinstance(data, dict) else None
    if not isinstance(branch, str) or not branch:
        raise BackendFailure("GitHub did not say which branch is the default one")
    return branch


def ruleset_checks(client: GitHubClient, branch: str) -> list[RequiredCheck]:
    """The status checks the active rulesets require on ``branch``, each with its ``integration_id``.

    Every page of the rules is read (a hundred a request): a repository with many rulesets must not have
    its required check reported missing."""
    rules: list[Any] = []
    page = 1
    while True:
        batch = _get(
            client,
            f"read the rules of {branch}",
            f"/rules/branches/{quote(branch, safe='')}",
            {"per_page": PER_PAGE, "page": page},
        )
        listed = batch if isinstance(batch, list) else []
        rules += listed
        if len(listed) < PER_PAGE:
            break
        page += 1
    out: list[RequiredCheck] = []
    for rule in rules:
        if not isinstance(rule, dict) or rule.get("type") != "required_status_checks":
            continue
        params = rule.get("parameters") or {}
        where = f"ruleset {rule.get('ruleset_id')}" if rule.get("ruleset_id") is not None else "a ruleset"
        for check in params.get("required_status_checks") or []:
            if isinstance(check, dict) and isinstance(check.get("context"), str):
                app = check.get("integration_id")
                out.append(RequiredCheck(check["context"], app if isinstance(app, int) else None, where))
    return out


def protection_checks(client: GitHubClient, branch: str) -> list[RequiredCheck] | None:
    """The status checks ``branch``'s protection requires (each with its ``app_id``); None: not readable."""
    url = f"{client.settings.api_url}/repos/{client.repository}/branches/{quote(branch, safe='')}/protection"

    def get(attempt: int) -> dict[str, Any] | None:
        try:
            _, data = client.github.requester.requestJsonAndCheck("GET", url)
        except GithubException as exc:
            message = exc.data.get("message") if isinstance(exc.data, dict) else None
            if exc.status == 404 and message == "Branch not protected":
                return {}
            if exc.status in (403, 404):
                return None
            raise
        return data if isinstance(data, dict) else {}

    what = f"read the branch protection of {branch}"
    try:
        data = client.transport.run(what, get)
    except GithubException as exc:
        raise backend_failure(exc, what, client.transport) from None
    if data is None:
        return None
    required = data.get("required_status_checks") or {}
    out: list[RequiredCheck] = []
    checks = required.get("checks")
    if isinstance(checks, list):
        for check in checks:
            if isinstance(check, dict) and isinstance(check.get("context"), str):
                app = check.get("app_id")
                out.append(RequiredCheck(check["context"], app if isinstance(app, int) else None, "branch protection"))
    else:
        out += [RequiredCheck(c, None, "branch protection") for c in required.get("contexts") or []]
    return out


def workflow_permissions(client: GitHubClient) -> str | None:
    """``read`` or ``write``: what a workflow's GITHUB_TOKEN gets by default; None when it cannot be read."""
    url = f"{client.settings.api_url}/repos/{client.repository}/actions/permissions/workflow"

    def get(attempt: int) -> str | None:
        try:
            _, data = client.github.requester.requestJsonAndCheck("GET", url)
        except GithubException as exc:
            if exc.status in (403, 404):
                return None
            raise
        value = data.get("default_workflow_permissions") if isinstance(data, dict) else None
        return value if isinstance(value, str) else None

    try:
        return client.transport.run("read the default workflow permissions", get)
    except GithubException as exc:
        raise backend_failure(exc, "read the default workflow permissions", client.transport) from None


#: Where GitHub reads a repository's workflows.
WORKFLOWS = ".github/workflows"


def _runs_parkbot(step: object) -> bool:
    """A step that uses the parkbot action (``.../actions/parkbot@REF``, ``./actions/parkbot``) or runs ``parkbot``."""
    if not isinstance(step, dict):
        return False
    uses = step.get("uses")
    if isinstance(uses, str) and uses.split("@", 1)[0].rstrip("/").endswith("actions/parkbot"):
        return True
    run = step.get("run")
    return isinstance(run, str) and any(line.strip().startswith("parkbot ") for line in run.splitlines())


def _permissions(value: object) -> dict[str, str] | str | None:
    if value is None:
        return None
    if isinstance(value, dict):
        return {str(k): str(v) for k, v in value.items()} or "{}"
    return str(value)


def declared_permissions(client: GitHubClient, branch: str) -> list[DeclaredPermissions] | None:
    """The ``permissions:`` of each job that runs parkbot in ``.github/workflows/*.yml`` on ``branch``.

    Read through the contents API (the directory, then each workflow file); None when the folder cannot
    be read (403). A file that is not valid YAML is skipped: GitHub would not run it either.
    """
    import base64

    import yaml

    base = f"{client.settings.api_url}/repos/{client.repository}/contents/{WORKFLOWS}"

    def get(attempt: int) -> list[DeclaredPermissions] | None:
        try:
            _, listing = client.github.requester.requestJsonAndCheck("GET", base, parameters={"ref": branch})
        except GithubException as exc:
            if exc.status == 404:
                return []
            if exc.status == 403:
                return None
            raise
        out: list[DeclaredPermissions] = []
        for entry in listing if isinstance(listing, list) else []:
            name = entry.get("name") if isinstance(entry, dict) else None
            if entry.get("type") != "file" or not isinstance(name, str) or not name.endswith((".yml", ".yaml")):
                continue
            _, data = client.github.requester.requestJsonAndCheck("GET", f"{base}/{name}", parameters={"ref": branch})
            try:
                text = base64.b64decode(data.get("content") or "").decode("utf-8")
                workflow = yaml.safe_load(text)
            except (ValueError, UnicodeDecodeError, yaml.YAMLError):
                continue
            if not isinstance(workflow, dict) or not isinstance(workflow.get("jobs"), dict):
                continue
            for job_name, job in workflow["jobs"].items():
                if not isinstance(job, dict) or not any(_runs_parkbot(s) for s in job.get("steps") or []):
                    continue
                granted = job["permissions"] if "permissions" in job else workflow.get("permissions")
                out.append(DeclaredPermissions(f"{WORKFLOWS}/{name}", str(job_name), _permissions(granted)))
        return out

    try:
        return client.transport.run("read parkbot's workflow files", get)
    except GithubException as exc:
        raise backend_failure(exc, "read parkbot's workflow files", client.transport) from None

"""Whether the gate protects anything: the rules of ``parkbot doctor``, over facts the adapters read.

A gate that nothing requires is advice, not a gate: anyone may merge while ``parkbot/decisions`` is red.
It protects a branch only when the default branch's protection or an active ruleset requires
``parkbot/decisions`` **from the App that publishes it** (``app_id`` in branch protection,
``integration_id`` in a ruleset): a required check of that name from any source can be turned green by
anyone who can write a commit status. On the embedded git backlog, answers carry authority only when
``answers.require_signed`` is on and the allowed-signers file exists.

Pure: the facts come in (:class:`RepositoryFacts`, :class:`GitFacts`), findings and a verdict go out.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal

#: The name of the gate (its check run, or commit status with ``gate.publish: status``).
GATE_NAME = "parkbot/decisions"
#: GitHub Actions' App id: the source of a check run or status written with a workflow's GITHUB_TOKEN.
GITHUB_ACTIONS_APP_ID = 15368
#: The login of a workflow's GITHUB_TOKEN.
ACTIONS_LOGIN = "github-actions[bot]"

Mode = Literal["action", "app"]
Level = Literal["ok", "advisory", "warning"]
Verdict = Literal["enforced", "advisory"]


@dataclass(frozen=True)
class RequiredCheck:
    """One required status check: its name, the App it must come from (None: any source), and where it is required."""

    context: str
    app_id: int | None
    source: str


@dataclass(frozen=True)
class Finding:
    """What doctor saw, and (unless ``ok``) what to change. ``advisory`` findings make the gate advisory."""

    level: Level
    topic: str
    message: str


#: The most a job of parkbot's workflows needs (docs/github-actions.md, "Permissions, and why");
#: ``statuses: write`` only with ``gate.publish: status`` or ``both``.
LEAST_PERMISSIONS: dict[str, str] = {
    "contents": "read",
    "issues": "write",
    "pull-requests": "write",
    "checks": "write",
    "statuses": "write",
}


@dataclass(frozen=True)
class DeclaredPermissions:
    """The ``permissions:`` a job that runs parkbot gets, as its workflow file declares them.

    ``permissions``: the job's own block, else the workflow's; a mapping of scope to level, the
    shorthand ``read-all`` / ``write-all``, or None when neither declares any (the repository's default).
    """

    path: str
    job: str
    permissions: dict[str, str] | str | None


def broader_than_needed(declared: DeclaredPermissions) -> list[str]:
    """The grants of ``declared`` beyond :data:`LEAST_PERMISSIONS`, worded for the finding; empty when least."""
    granted = declared.permissions
    if granted is None:
        return ["no permissions: block (the job gets the repository's default token)"]
    if isinstance(granted, str):
        return [] if granted == "{}" else [f"permissions: {granted}"]
    broader = []
    for scope, level in sorted(granted.items()):
        allowed = LEAST_PERMISSIONS.get(scope)
        if level == "none" or level == allowed or (level == "read" and allowed == "write"):
            continue
        broader.append(f"{scope}: {level}")
    return broader


@dataclass(frozen=True)
class RepositoryFacts:
    """What the GitHub adapter read about one repository.

    ``protection_readable`` is False when branch protection could not be read (the token lacks the
    Administration permission); rulesets are readable with read access.
    """

    repository: str
    mode: Mode
    default_branch: str
    required: tuple[RequiredCheck, ...]
    protection_readable: bool
    expected_app_id: int | None
    token_login: str
    expected_login: str
    config_problem: str | None = None
    #: ``read`` or ``write``: the default permissions of workflows' GITHUB_TOKEN (action mode), None unread.
    workflow_permissions: str | None = None
    #: The permissions of each job of parkbot's workflows on the default branch (action mode); None unread.
    declared_permissions: tuple[DeclaredPermissions, ...] | None = None


@dataclass(frozen=True)
class GitFacts:
    """What the git backlog's configuration says about signed answers."""

    require_signed: bool
    allowed_signers: str
    allowed_signers_exists: bool
    config_problem: str | None = None


@dataclass
class Diagnosis:
    """Findings, and whether the gate is enforced (exit 0) or advisory (exit 1)."""

    findings: list[Finding] = field(default_factory=list)
    #: None when what decides the verdict could not be read (the caller reports a backend failure).
    unreadable: str | None = None

    @property
    def verdict(self) -> Verdict:
        return "advisory" if any(f.level == "advisory" for f in self.findings) else "enforced"

    @property
    def exit_code(self) -> int:
        return 0 if self.verdict == "enforced" else 1


def diagnose_github(facts: RepositoryFacts) -> Diagnosis:
    """The findings for a repository parkbot gates through GitHub (the action or the App)."""
    out = Diagnosis()
    branch = facts.default_branch
    gate = [c for c in facts.required if c.context == GATE_NAME]
    source = "GitHub Actions" if facts.mode == "action" else f"the App (id {facts.expected_app_id})"
    pinned = [c for c in gate if facts.expected_app_id is not None and c.app_id == facts.expected_app_id]
    if pinned:
        where = ", ".join(sorted({c.source for c in pinned}))
        out.findings.append(
            Finding("ok", "required check", f"{GATE_NAME} from {source} is required on {branch} ({where})")
        )
    elif gate:
        loose = gate[0]
        other = "any source" if loose.app_id is None else f"App id {loose.app_id}"
        out.findings.append(
            Finding(
                "advisory",
                "required check",
                f"{GATE_NAME} is required on {branch} ({loose.source}) from {other}, not from {source}: anyone who "
                f"can set a commit status can turn it green. Pin its source to {source} "
                f"(app_id / integration_id {facts.expected_app_id}).",
            )
        )
    elif not facts.protection_readable:
        out.unreadable = (
            f"no active ruleset requires {GATE_NAME} on {branch}, and its branch protection could not be read "
            "(the token needs the Administration: read permission)"
        )
        return out
    else:
        out.findings.append(
            Finding(
                "advisory",
                "required check",
                f"nothing requires {GATE_NAME} on {branch}: the gate is advice, anyone may merge while it is red. "
                f"Add it as a required status check from {source} in a ruleset (Settings > Rules > Rulesets) "
                "or in the branch protection.",
            )
        )
    if facts.token_login.casefold() == facts.expected_login.casefold():
        out.findings.append(Finding("ok", "identity", f"parkbot writes as {facts.token_login}, the login it trusts"))
    else:
        out.findings.append(
            Finding(
                "advisory",
                "identity",
                f"the token acts as {facts.token_login}, but parkbot trusts records written by "
                f"{facts.expected_login}: what it writes would not count. Run it with {facts.expected_login}'s token "
                "or set bot_login in .github/parkbot.yml.",
            )
        )
    if facts.config_problem:
        out.findings.append(
            Finding("advisory", "configuration", f"the configuration on {branch} is invalid: {facts.config_problem}")
        )
    else:
        out.findings.append(Finding("ok", "configuration", f"the configuration on {branch} checks out"))
    if facts.mode == "action" and facts.workflow_permissions == "write":
        out.findings.append(
            Finding(
                "warning",
                "workflow permissions",
                "workflows get a write token by default: set Settings > Actions > General > Workflow permissions to "
                "read, and give parkbot's workflow only the permissions it declares (issues, pull-requests, "
                "checks, statuses: write; contents: read).",
            )
        )
    elif facts.mode == "action" and facts.workflow_permissions == "read":
        out.findings.append(Finding("ok", "workflow permissions", "workflows get a read-only token by default"))
    if facts.mode == "action" and facts.declared_permissions is not None:
        out.findings += _declared_findings(facts.declared_permissions)
    return out


def _declared_findings(declared: tuple[DeclaredPermissions, ...]) -> list[Finding]:
    """A warning per job of parkbot's workflows that is granted more than parkbot needs."""
    findings = []
    for job in declared:
        broader = broader_than_needed(job)
        if broader:
            least = ", ".join(f"{scope}: {level}" for scope, level in LEAST_PERMISSIONS.items())
            findings.append(
                Finding(
                    "warning",
                    "workflow permissions",
                    f"{job.path}, job {job.job}, grants more than parkbot needs ({'; '.join(broader)}): declare only "
                    f"what it uses, at most {least} (statuses only with gate.publish: status or both), and "
                    "permissions: {} at the top of the workflow",
                )
            )
    if declared and not findings:
        names = sorted({job.path for job in declared})
        findings.append(
            Finding(
                "ok", "workflow permissions", f"parkbot's workflows declare the least they need ({', '.join(names)})"
            )
        )
    return findings


def diagnose_git(facts: GitFacts) -> Diagnosis:
    """The findings for the embedded git backlog: answers count only when signed by an owner."""
    out = Diagnosis()
    if facts.config_problem:
        out.findings.append(
            Finding("advisory", "configuration", f"the configuration is invalid: {facts.config_problem}")
        )
        return out
    out.findings.append(Finding("ok", "configuration", "the configuration checks out"))
    if not facts.require_signed:
        out.findings.append(
            Finding(
                "advisory",
                "signed answers",
                "answers.require_signed is off: anyone who can push the backlog ref can record an answer. Turn it "
                "on and list the owners' keys in the allowed-signers file (see docs/git-backlog.md).",
            )
        )
    elif not facts.allowed_signers_exists:
        out.findings.append(
            Finding(
                "advisory",
                "signed answers",
                f"answers.require_signed is on but {facts.allowed_signers} does not exist: no answer can count. "
                "Commit the owners' keys there.",
            )
        )
    else:
        out.findings.append(
            Finding("ok", "signed answers", f"answers count only when an owner listed in {facts.allowed_signers} signs")
        )
    return out

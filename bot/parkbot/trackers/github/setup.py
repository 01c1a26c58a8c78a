"""Setting a repository up for parkbot on GitHub (``parkbot init --github``): its standing labels.

parkbot adds these labels as it works, and GitHub would create a missing one on first use, grey and
without a description. Created beforehand, they carry a colour and say what they mean on every issue,
and a repository's people see them before the first question arrives.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from github import GithubException

from parkbot.trackers.github.client import GitHubClient, backend_failure
from parkbot.trackers.github.labels import (
    ABANDONED_LABEL,
    BLOCKING_LABEL,
    DASHBOARD_LABEL,
    DECISION_LABEL,
    LABEL_COLOR,
    LOG_LABEL,
    RESOLVED_LABEL,
    TRACKED_LABEL,
)
from parkbot.trackers.github.store import already_exists

#: The labels every repository running parkbot has: name -> (colour, description; GitHub allows 100 characters).
STANDING_LABELS: dict[str, tuple[str, str]] = {
    DECISION_LABEL: (LABEL_COLOR, "A question an agent parked for an owner; answer it with /decide OPTION"),
    BLOCKING_LABEL: ("d93f0b", "An open decision that blocks the pull requests or branches depending on it"),
    RESOLVED_LABEL: ("0e8a16", "A decision answered by an owner; what depended on it may merge"),
    ABANDONED_LABEL: ("bfd4f2", "A decision closed without an answer (closed_without_answer: abandon)"),
    DASHBOARD_LABEL: (LABEL_COLOR, "parkbot's decision dashboard: the open decisions by owner"),
    LOG_LABEL: (LABEL_COLOR, "parkbot's log of questions"),
    TRACKED_LABEL: ("ededed", "A pull request whose branch parkbot has looked up among the decisions"),
}


@dataclass(frozen=True)
class LabelOutcome:
    """What happened to one standing label."""

    name: str
    action: Literal["created", "exists"]


def create_standing_labels(client: GitHubClient) -> list[LabelOutcome]:
    """Create each standing label the repository lacks (one listing, then one request per missing label).

    A label that exists, in any letter case, is left as it is: its colour and description may be the
    repository's own choice.
    """
    repo = client.github.get_repo(client.repository)  # lazy: no request
    transport = client.transport

    def listed(_: int) -> set[str]:
        return {label.name.casefold() for label in repo.get_labels()}

    try:
        existing = transport.run("list the repository's labels", listed)
    except GithubException as exc:
        raise backend_failure(exc, "list the repository's labels", transport) from None
    outcomes = []
    for name, (color, description) in STANDING_LABELS.items():
        if name.casefold() in existing:
            outcomes.append(LabelOutcome(name, "exists"))
            continue

        def create(_: int, name: str = name, color: str = color, description: str = description) -> bool:
            try:
                repo.create_label(name, color, description)
            except GithubException as exc:
                if exc.status == 422 and already_exists(exc):
                    return False  # created meanwhile
                raise
            return True

        try:
            created = transport.run(f"create the label {name}", create)
        except GithubException as exc:
            raise backend_failure(exc, f"create the label {name}", transport) from None
        outcomes.append(LabelOutcome(name, "created" if created else "exists"))
    return outcomes

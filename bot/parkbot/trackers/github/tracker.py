"""``GitHubTracker``: a facade, the sum of the capability parts of :mod:`parkbot.trackers.github.capabilities`
(the :class:`~parkbot.core.tracker.Tracker` protocol and each capability GitHub offers), over the parts of the
adapter that do the work (see the docstring of :mod:`parkbot.trackers.github`).

The adapter's parts are built here, once, in the order they need each other; each gets what it uses and no
more. Claiming a protocol is subclassing it, so mypy checks every signature against it.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import TYPE_CHECKING, final

from parkbot.trackers.github.access import Access
from parkbot.trackers.github.answers import AnswerRecords
from parkbot.trackers.github.capabilities import (
    CommentsPart,
    DashboardPart,
    GatesPart,
    PlannerPart,
    PollingPart,
    TrackerPart,
)
from parkbot.trackers.github.client import GitHubClient
from parkbot.trackers.github.comments import Comments
from parkbot.trackers.github.dashboard_issue import Dashboard
from parkbot.trackers.github.dependents import Dependents
from parkbot.trackers.github.gate import Gate, PublishMode
from parkbot.trackers.github.issue_writes import DecisionWrites
from parkbot.trackers.github.issues import DecisionIssues
from parkbot.trackers.github.question_log import LogIssue, QuestionLog
from parkbot.trackers.github.reactions import CommentReactions
from parkbot.trackers.github.sources import SourceFiles
from parkbot.trackers.github.store import IssueStore

if TYPE_CHECKING:
    from parkbot.core.config import Config


@final  # mypy then checks here that every method of every protocol claimed below is implemented
class GitHubTracker(TrackerPart, PlannerPart, PollingPart, CommentsPart, GatesPart, DashboardPart):
    """Decisions stored as GitHub issues (see the docstring of :mod:`parkbot.trackers.github`)."""

    backend = "github"

    def __init__(
        self,
        client: GitHubClient,
        *,
        race_wait: float = 2.0,
        sleep: Callable[[float], None] = time.sleep,
        bot_login: str | None = None,
    ) -> None:
        self.client = client
        self.store = IssueStore(client, bot_login=bot_login)
        self.comments = Comments(self.store)
        self.log_issue = LogIssue(self.store, self.comments)
        self.issues = DecisionIssues(self.store, self.comments, self.log_issue)
        self.writes = DecisionWrites(
            self.store, self.comments, self.log_issue, self.issues, race_wait=race_wait, sleep=sleep
        )
        self.question_log = QuestionLog(self.store, self.issues, self.log_issue)
        self.dependents = Dependents(self.store, self.issues, self.writes)
        self.answers = AnswerRecords(self.store, self.issues, self.comments, self.dependents)
        self.gate = Gate(self.store, self.issues, self.dependents)
        self.access = Access(self.store, self.dependents)
        self.dashboard = Dashboard(self.store, self.issues, self.writes)
        self.reactions = CommentReactions(self.store)
        self.sources = SourceFiles(self.store)

    def __repr__(self) -> str:
        return f"GitHubTracker({self.client.repository!r})"

    # -- configuration and identity -------------------------------------------------------------

    def configure(self, config: Config) -> None:
        """Apply the settings that concern GitHub: ``bot_login`` and ``gate.publish``."""
        self.store.configure_login(config.bot_login, config.identity.logins)
        self.gate.publish_mode = config.gate.publish

    def read_config_text(self, path: str) -> str | None:
        """A file from the default branch (the config), or None when it does not exist."""
        return self.store.read_file(path)

    @property
    def repository(self) -> str:
        return self.store.repository

    @property
    def own_login(self) -> str:
        """parkbot's own login (see :attr:`IssueStore.own_login`)."""
        return self.store.own_login

    def token_login(self) -> str:
        return self.store.token_login()

    @property
    def publish_mode(self) -> PublishMode:
        return self.gate.publish_mode

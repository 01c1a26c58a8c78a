"""The :class:`Backlog`: the public verbs of the API, each a call into the module that holds its logic.

Each verb imports its module when called: a command loads the code of the verbs it runs and no other
(``gate``, ``show`` and ``resume`` the reading, ``list`` the listing; tests/cli/test_startup.py).
"""

from __future__ import annotations

import builtins
import os
import time
from collections.abc import Callable, Mapping
from datetime import datetime, timedelta
from pathlib import Path
from typing import TYPE_CHECKING, Any

from parkbot.backends import Backend, open_backend
from parkbot.core.config import Config
from parkbot.core.tracker import Tracker

if TYPE_CHECKING:
    from parkbot.api.listing import PrintedList
    from parkbot.api.results import (
        Cited,
        Corrected,
        DecisionList,
        DecisionView,
        Filed,
        GateReport,
        Inventory,
        Requested,
        Resolved,
        ResumeContext,
        Synced,
    )
    from parkbot.core.durations import Duration
    from parkbot.core.listing import Awaiting, ListState
    from parkbot.core.models import Result

__all__ = ["Backlog"]


class Backlog:
    """The decisions of one repository, in the embedded git backlog or on GitHub."""

    def __init__(self, backend: Backend, *, env: Mapping[str, str] | None = None) -> None:
        self._backend = backend
        self._env = env
        #: ``git`` or ``github``.
        self.backend: str = backend.name
        #: The opened tracker (the adapter's facade) and the configuration that governs it.
        self.tracker: Tracker = backend.tracker
        self.config: Config = backend.config

    @classmethod
    def open(
        cls,
        repo: str | os.PathLike[str] = ".",
        backend: str = "git",
        *,
        config: str | os.PathLike[str] | None = None,
        env: Mapping[str, str] | None = None,
    ) -> Backlog:
        """The backlog of the repository containing ``repo`` (``git``), or of ``GITHUB_REPOSITORY`` (``github``,
        settings from ``env``, default the process environment). ``config`` defaults to ``.github/parkbot.yml``."""
        environment = os.environ if env is None else env
        opened = open_backend(
            backend, repo_path=Path(repo), config_path=None if config is None else Path(config), env=environment
        )
        return cls(opened, env=environment)

    def close(self) -> None:
        """Release what the backend holds open (the git backlog's helper processes)."""
        self._backend.close()

    def __enter__(self) -> Backlog:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # -- filing ---------------------------------------------------------------------------------
    def park(self, result: Result | Mapping[str, Any] | str | bytes) -> Filed | Inventory:
        """File an agent's result: ``needs_input`` becomes a decision, ``done_with_assumptions`` a review item,
        and a ``done``/``failed`` inventory is checked against the backlog (a listed decision that is not
        there is :class:`~parkbot.core.errors.NotFound`)."""
        from parkbot.api import filing

        return filing.park(self.tracker, self.config, result)

    # -- reading --------------------------------------------------------------------------------
    def show(self, id: str) -> DecisionView:
        """One decision: question, options, state, owner, answer, dependents, where it lives."""
        from parkbot.api import reading

        return reading.show(self.tracker, self.config, id)

    def resume(self, id: str) -> ResumeContext:
        """What a fresh session needs to continue; ``exit_code`` 1 while the question is still open."""
        from parkbot.api import reading

        return reading.resume(self.tracker, self.config, id)

    def wait(
        self,
        id: str,
        timeout: Duration | timedelta | float | str = "10m",
        *,
        sleep: Callable[[float], None] = time.sleep,
        clock: Callable[[], float] = time.monotonic,
    ) -> ResumeContext:
        """Wait up to ``timeout`` for an answer (``0s``: look once); the context, answered or still ``open``."""
        from parkbot.api import waiting

        return waiting.wait(self.tracker, self.config, self.backend, id, timeout, sleep=sleep, clock=clock)

    def gate(self, ref: str | None = None, *, pr: int | str | None = None) -> GateReport:
        """May this branch (``ref``) or pull request (``pr``, GitHub) merge? ``exit_code`` 1 while blocked.

        On GitHub the result is also published as the gate of the pull request's head.
        """
        from parkbot.api import reading

        return reading.gate(self.tracker, self.config, self.backend, ref, pr)

    def list(
        self,
        state: ListState | None = None,
        *,
        owner: str | None = None,
        origin: str | None = None,
        answered_since: Duration | timedelta | datetime | str | None = None,
        now: datetime | None = None,
        awaiting: Awaiting | None = None,
    ) -> DecisionList:
        """Decisions, oldest first. ``state`` defaults to ``open``, or to every answered decision with
        ``answered_since`` (a span back from now such as ``1h``, or a moment): then they come in the order
        they were answered, so a supervisor picks up the work that can continue."""
        from parkbot.api import listing
        from parkbot.core.listing import ListQuery

        query = ListQuery.of(state, owner, origin, answered_since, now, awaiting)
        return listing.decision_list(self.tracker, self.config, query)

    def list_printed(
        self,
        state: ListState | None = None,
        *,
        owner: str | None = None,
        origin: str | None = None,
        answered_since: Duration | timedelta | datetime | str | None = None,
        now: datetime | None = None,
        as_json: bool = False,
        awaiting: Awaiting | None = None,
    ) -> PrintedList:
        """What :meth:`list` returns, as the command line prints it (its JSON only ``as_json``), read in
        the memory its text takes: ``parkbot list``."""
        from parkbot.api import listing
        from parkbot.core.listing import ListQuery

        query = ListQuery.of(state, owner, origin, answered_since, now, awaiting)
        return listing.printed_list(self.tracker, self.config, query, as_json=as_json)

    # -- acting as an owner ---------------------------------------------------------------------
    def resolve(
        self,
        id: str,
        answer: str,
        *,
        by: str | None = None,
        default: bool = False,
        source: str = "api",
        now: datetime | None = None,
    ) -> Resolved | Requested:
        """Answer a decision as one of its owners (``by``; in git, default your ``user.email``).

        On GitHub with a person's token the answer is posted as that person's ``/decide`` (or ``/answer``,
        ``/default``) comment, which parkbot's workflow records: :class:`Requested`.
        """
        from parkbot.api import acting

        return acting.resolve(self.tracker, self.config, id, answer, by=by, default=default, source=source, now=now)

    def escalate(self, id: str, *, by: str | None = None, to: str | None = None) -> Filed | Requested:
        """Hand a question exactly one level up the owner hierarchy."""
        from parkbot.api import acting

        return acting.escalate(self.tracker, self.config, id, by=by, to=to)

    def return_to_requester(self, id: str, *, by: str | None = None) -> Filed | Requested:
        """Hand the question back to the requester of an interactive run."""
        from parkbot.api import acting

        return acting.return_to_requester(self.tracker, self.config, id, by=by)

    def accept(self, id: str, *, by: str | None = None) -> Resolved | Requested:
        """Accept a review item's stated assumptions and close it (or, on a question, the planner's answer)."""
        from parkbot.api import planning

        return planning.accept(self.tracker, self.config, id, by=by)

    def override(self, id: str, number: int, text: str, *, by: str | None = None) -> Filed | Requested:
        """Turn assumption ``number`` of a review item into a recorded answer."""
        from parkbot.api import acting

        return acting.override(self.tracker, self.config, id, number, text, by=by)

    # -- the planner ----------------------------------------------------------------------------
    def cite(
        self,
        id: str,
        answer: str,
        sources: builtins.list[str],
        *,
        by: str | None = None,
        source: str = "api",
        now: datetime | None = None,
    ) -> Cited | Requested:
        """Answer as the configured planner, from checked sources (``docs/x.md#L3-L9`` or a decision id a
        person answered); refused (exit 3) when a source does not hold. See docs/planner.md."""
        from parkbot.api import planning

        return planning.cite(self.tracker, self.config, id, answer, sources, by=by, source=source, now=now)

    def pass_question(self, id: str, *, by: str | None = None, reason: str | None = None) -> Filed | Requested:
        """The planner cannot answer from its sources: hand the question to its owner now."""
        from parkbot.api import planning

        return planning.pass_question(self.tracker, self.config, id, by=by, reason=reason)

    def correct(
        self, id: str, answer: str, *, reason: str, by: str | None = None, source: str = "api"
    ) -> Corrected | Requested:
        """Correct a resolved decision's answer (whoever answered, or an owner above them): the correction is
        recorded next to the first answer; dependents not merged are re-gated, merged ones told to rework."""
        from parkbot.api import planning

        return planning.correct(self.tracker, self.config, id, answer, reason=reason, by=by, source=source)

    def override_planner(
        self, id: str, answer: str, *, reason: str | None = None, by: str | None = None, source: str = "api"
    ) -> Corrected | Requested:
        """The owner's answer replaces the planner's (recorded as an override of it)."""
        from parkbot.api import planning

        return planning.override_planner(self.tracker, self.config, id, answer, reason=reason, by=by, source=source)

    def accept_planner(self, id: str, *, by: str | None = None) -> Resolved | Requested:
        """The owner keeps the planner's answer: its review item is cleared."""
        from parkbot.api import planning

        return planning.accept_planner(self.tracker, self.config, id, by=by)

    def hand_over(self, now: datetime | None = None) -> builtins.list[Filed]:
        """Hand every question whose planner window ended to its owner (a scheduled run does this)."""
        from parkbot.api import planning

        return planning.hand_over(self.tracker, self.config, now)

    # -- sharing --------------------------------------------------------------------------------
    def sync(self, remote: str = "origin") -> Synced:
        """Share the embedded backlog with a remote: fetch, merge, push (git backend only)."""
        from parkbot.api import reading

        return reading.sync(self.tracker, self.config, remote)

    @staticmethod
    def schema() -> dict[str, Any]:
        """The JSON Schema of agent results (``parkbot schema``)."""
        from parkbot.core.models import result_json_schema

        return result_json_schema()

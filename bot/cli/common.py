"""What every command shares: backend options, output for people and machines, and exit codes.

Only this layer reads the environment (through click's ``envvar``) and writes to the terminal; the
lifecycle below it is pure.
"""

from __future__ import annotations

import functools
import json
import os
import sys
from collections.abc import Callable
from typing import Any, TypeVar

import click

from bot.backends import BACKENDS, Backend, open_backend
from bot.core.authority import Actor
from bot.core.errors import ExitCode, InvalidInput, ParkbotError

F = TypeVar("F", bound=Callable[..., Any])


class State:
    """Options common to every command, gathered once."""

    def __init__(self, backend: str, config: str | None, repo: str, as_json: bool) -> None:
        self.backend_name = backend
        self.config_path = config
        self.repo = repo
        self.as_json = as_json
        self._backend: Backend | None = None

    @property
    def backend(self) -> Backend:
        if self._backend is None:
            self._backend = open_backend(
                self.backend_name, repo_path=self.repo, config_path=self.config_path, env=os.environ
            )
        return self._backend


def backend_options(func: F) -> F:
    """``--backend``, ``--config``, ``--repo`` and ``--json`` on every command, in any position."""

    @click.option(
        "--backend",
        type=click.Choice(BACKENDS),
        default="git",
        show_default=True,
        envvar="PARKBOT_BACKEND",
        help="Where decisions live: the embedded git backlog, or GitHub issues (env PARKBOT_BACKEND).",
    )
    @click.option(
        "--config",
        "config_path",
        type=click.Path(dir_okay=False),
        default=None,
        help="Configuration file (default: .github/parkbot.yml in the repository, if present).",
    )
    @click.option(
        "--repo",
        default=".",
        show_default=True,
        type=click.Path(file_okay=False),
        help="A path inside the git repository that holds the embedded backlog.",
    )
    @click.option("--json", "as_json", is_flag=True, help="Print one JSON object on stdout, for machines.")
    @functools.wraps(func)
    def wrapper(*args: Any, backend: str, config_path: str | None, repo: str, as_json: bool, **kwargs: Any) -> Any:
        state = State(backend, config_path, repo, as_json)
        try:
            return func(state, *args, **kwargs)
        except ParkbotError as exc:
            fail(state, exc.message, exc.exit_code, exc.reason)

    return wrapper  # type: ignore[return-value]


def emit(state: State, data: dict[str, Any], text: str) -> None:
    """JSON for machines with ``--json``, else the readable text."""
    click.echo(json.dumps(data, indent=2, default=str) if state.as_json else text)


def fail(state: State, message: str, code: ExitCode, reason: str) -> None:
    """Report an understood failure: one JSON object with ``--json``, a readable message on stderr always."""
    if state.as_json:
        click.echo(json.dumps({"error": reason, "message": message, "exit_code": int(code)}, indent=2))
    click.echo(f"parkbot: {message}", err=True)
    sys.exit(int(code))


def by_option(verb: str) -> Callable[[F], F]:
    """``--by``: who answers or acts (env ``PARKBOT_ACTOR``; in git, your ``user.email`` by default)."""
    return click.option(
        "--by",
        "by",
        envvar="PARKBOT_ACTOR",
        default=None,
        help=f"Who {verb} (env PARKBOT_ACTOR; default in git: your git user.email).",
    )


def actor(state: State, by: str | None, verb: str) -> Actor:
    """Who acts: what the backend can tell from its own credentials and ``--by`` (see ``Tracker.actor``)."""
    try:
        return state.backend.tracker.actor(by)
    except InvalidInput as exc:
        raise InvalidInput(f"say who {verb} with --by LOGIN (or PARKBOT_ACTOR): {exc.message}") from None

"""What every command shares: backend options, output for people and machines, and exit codes.

The commands read their options from the environment through click's ``envvar`` and print what the
API (:mod:`parkbot.api`) returns: the text, one JSON object, and the exit code of an error. The core
below reads no environment and prints nothing (tests/project/test_architecture.py); the API and the adapters
do read the environment they are given or run in (``Backlog.open``, git's own variables), and the GitHub
client shows rate-limit waits on stderr.
"""

from __future__ import annotations

import contextlib
import functools
import gc
import json
import os
import sys
from collections.abc import Callable, Iterator
from typing import TYPE_CHECKING, Any, NoReturn, Protocol, TypeVar

import click

from parkbot.cli.messages import cli_message, error_object
from parkbot.core.errors import ExitCode, ParkbotError
from parkbot.terminal import printable

if TYPE_CHECKING:  # for the type checker only: nothing tests these at run time
    from parkbot.api import Backlog
    from parkbot.backends import Backend

    F = TypeVar("F", bound=Callable[..., Any])

    class Printable(Protocol):
        """What a command prints: its ``--json`` object, its text for people, and how it exits."""

        @property
        def exit_code(self) -> ExitCode: ...

        def model_dump(self, *, mode: str) -> dict[str, Any]: ...

        def text(self) -> str: ...


#: The backends ``--backend`` offers (the same names as :data:`parkbot.backends.BACKENDS`, kept here so
#: ``--help`` imports no backend code).
BACKEND_NAMES = ("git", "github")


class State:
    """Options common to every command, gathered once; the backlog is opened on first use."""

    def __init__(self, backend: str, config: str | None, repo: str, as_json: bool) -> None:
        self.backend_name = backend
        self.config_path = config
        self.repo = repo
        self.as_json = as_json
        self._backend: Backend | None = None

    @property
    def backend(self) -> Backend:
        if self._backend is None:
            with loading():
                from parkbot.backends import open_backend

                self._backend = open_backend(
                    self.backend_name, repo_path=self.repo, config_path=self.config_path, env=os.environ
                )
        return self._backend

    @property
    def backlog(self) -> Backlog:
        with loading():
            from parkbot.api import Backlog

            return Backlog(self.backend, env=os.environ)


@contextlib.contextmanager
def loading() -> Iterator[None]:
    """While a command loads parkbot and opens the backlog, the garbage collector is paused: loading makes
    thousands of objects that live as long as the process (modules, classes, validators) and next to no
    garbage, and each collection pass would walk all of them again (a tenth of a command's start-up).
    What exists then is moved out of later passes (``gc.freeze``), and collection resumes as before."""
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        gc.freeze()
        if enabled:
            gc.enable()


@contextlib.contextmanager
def whole_scan() -> Iterator[None]:
    """While a command reads every decision, the garbage collector is paused: its passes walk every object
    alive (modules, schemas, the decisions at hand) and cost a fifth of reading 10,000 decisions, which
    hold no reference cycles to collect. Cycles made meanwhile are collected once it resumes."""
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            gc.enable()


def where_options(func: F) -> F:
    """``--backend``, ``--config`` and ``--repo``: where the decisions live and which configuration applies."""
    func = click.option(
        "--repo",
        default=".",
        show_default=True,
        type=click.Path(file_okay=False),
        help="A path inside the git repository that holds the embedded backlog.",
    )(func)
    func = click.option(
        "--config",
        "config_path",
        type=click.Path(dir_okay=False),
        default=None,
        help="Configuration file (default: .github/parkbot.yml in the repository, if present).",
    )(func)
    return click.option(
        "--backend",
        type=click.Choice(BACKEND_NAMES),
        default="git",
        show_default=True,
        envvar="PARKBOT_BACKEND",
        help="Where decisions live: the embedded git backlog, or GitHub issues (env PARKBOT_BACKEND).",
    )(func)


def backend_options(func: F) -> F:
    """``--backend``, ``--config``, ``--repo`` and ``--json`` on every command, in any position."""

    @where_options
    @json_option
    @functools.wraps(func)
    def wrapper(*args: Any, backend: str, config_path: str | None, repo: str, as_json: bool, **kwargs: Any) -> Any:
        state = State(backend, config_path, repo, as_json)
        try:
            return func(state, *args, **kwargs)
        except ParkbotError as exc:
            fail(exc, as_json=state.as_json)

    return wrapper  # type: ignore[return-value]


def json_option(func: F) -> F:
    return click.option("--json", "as_json", is_flag=True, help="Print one JSON object on stdout, for machines.")(func)


def emit(state: State, data: dict[str, Any], text: str) -> None:
    """JSON for machines with ``--json``, else the readable text."""
    click.echo(json.dumps(data, indent=2, default=str) if state.as_json else printable(text))


def show(state: State, result: Printable) -> None:
    """Print a result (its ``--json`` object, or its text) and exit with its code (1: blocked)."""
    emit(state, result.model_dump(mode="json"), result.text())
    if result.exit_code:
        sys.exit(int(result.exit_code))


def fail(exc: ParkbotError, *, as_json: bool) -> NoReturn:
    """Report an understood failure: one JSON object with ``--json``, a readable message on stderr always
    (the core's message with the next step as a ``parkbot`` command, see :mod:`parkbot.cli.messages`)."""
    if as_json:
        click.echo(json.dumps(error_object(exc), indent=2))
    click.echo(f"parkbot: {printable(cli_message(exc))}", err=True)
    sys.exit(int(exc.exit_code))


def by_option(verb: str) -> Callable[[F], F]:
    """``--by``: who answers or acts (env ``PARKBOT_ACTOR``; in git, your ``user.email`` by default)."""
    return click.option(
        "--by",
        "by",
        envvar="PARKBOT_ACTOR",
        default=None,
        help=f"Who {verb} (env PARKBOT_ACTOR; default in git: your git user.email).",
    )

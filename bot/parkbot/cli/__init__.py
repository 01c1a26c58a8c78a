"""The ``parkbot`` command line: thin click commands over :mod:`parkbot.api`.

Exit codes (a contract): 0 done · 1 blocked · 2 invalid input or usage · 3 refused by a lifecycle
rule · 4 backend failure after retries (safe to run again).

Commands are registered in :data:`COMMANDS` and imported only when run (or asked for their help),
so ``parkbot --help`` loads click and nothing else, and ``parkbot gate`` never loads the GitHub
client, the event handlers or the report. With ``--json`` every outcome is exactly one JSON object on
stdout, usage errors included (see :class:`LazyGroup`).
"""

from __future__ import annotations

import contextlib
import errno
import gc
import importlib
import io
import json
import sys
from collections.abc import Sequence
from typing import Any

import click

from parkbot import __version__

#: Every command: name -> (module, attribute, the summary ``parkbot --help`` shows, which is the first
#: sentence of the command's own help; a test keeps the two equal). Adding a command is one line.
COMMANDS: dict[str, tuple[str, str, str]] = {
    "park": (
        "parkbot.cli.core",
        "park",
        "File an agent's result: a needs_input result becomes a decision in the backlog.",
    ),
    "resolve": (
        "parkbot.cli.core",
        "resolve",
        "Answer a decision as one of its owners, and unblock what depends on it.",
    ),
    "gate": (
        "parkbot.cli.core",
        "gate",
        "May this pull request or branch merge? Exit 0 when no decision blocks it, 1 while any does.",
    ),
    "show": ("parkbot.cli.core", "show_", "Show one decision: question, options, state, owner, answer, dependents."),
    "list": ("parkbot.cli.core", "list_", "List decisions, oldest first."),
    "escalate": (
        "parkbot.cli.core",
        "escalate",
        "Hand a question exactly one level up the owner hierarchy, keeping its context.",
    ),
    "schema": (
        "parkbot.cli.core",
        "schema",
        "Print the JSON Schema of agent results, so agents can validate before they send.",
    ),
    "sync": (
        "parkbot.cli.core",
        "sync",
        "Share the embedded backlog with a remote: fetch, merge, push (git backend only).",
    ),
    "wait": (
        "parkbot.cli.policy",
        "wait",
        "Wait online for an answer; print it as JSON (exit 0), or exit 1 when the window passes.",
    ),
    "resume": (
        "parkbot.cli.policy",
        "resume",
        "Print what a fresh session needs to continue: the question, the answer and how it was given, the work.",
    ),
    "return": (
        "parkbot.cli.policy",
        "return_",
        "Hand the question back to the requester of an interactive run (when the owner cannot answer).",
    ),
    "accept": (
        "parkbot.cli.policy",
        "accept",
        "Accept a review item: a task's stated assumptions, or a planner's answer.",
    ),
    "override": (
        "parkbot.cli.policy",
        "override",
        "Turn assumption NUMBER of a review item into a recorded answer, or replace a planner's answer (--answer).",
    ),
    "cite": (
        "parkbot.cli.planner",
        "cite",
        "Answer a question as the planner, from cited sources that parkbot checks.",
    ),
    "pass": ("parkbot.cli.planner", "pass_", "As the planner, hand a question to its owner now."),
    "hand-over": (
        "parkbot.cli.planner",
        "hand_over",
        "Hand every question whose planner window ended to its owner, as the scheduled run does.",
    ),
    "correct": (
        "parkbot.cli.planner",
        "correct",
        "Correct a resolved decision's answer: recorded next to the first, which the history keeps.",
    ),
    "report": (
        "parkbot.cli.report",
        "report",
        "Report what the agents asked: counts, time to answer, the weekly rate, recurring questions.",
    ),
    "dashboard": (
        "parkbot.cli.dashboard",
        "dashboard",
        "Keep the decision dashboard issue up to date (GitHub): open decisions by owner, and the numbers.",
    ),
    "handle-event": (
        "parkbot.cli.events",
        "handle_event",
        "Route the GitHub Actions event that started this run to parkbot (always the GitHub backend).",
    ),
    "guide": (
        "parkbot.cli.guide",
        "guide",
        "Print the instructions to give an agent: when to ask, the result JSON, the limits, waiting.",
    ),
    "mcp": ("parkbot.cli.mcp", "mcp", "Serve parkbot to agents over the Model Context Protocol (stdio)."),
    "init": (
        "parkbot.cli.init",
        "init",
        "Set a repository up for parkbot: its configuration, workflows and labels; safe to run again.",
    ),
    "completion": (
        "parkbot.cli.completion",
        "completion",
        "Print the shell completion script for bash, zsh or fish.",
    ),
    "doctor": (
        "parkbot.cli.doctor",
        "doctor",
        "Say whether the gate actually protects anything, and what to change where it does not.",
    ),
    "serve": (
        "parkbot.cli.serve",
        "serve",
        "Run parkbot as a GitHub App: a webhook server for many repositories, on a durable queue.",
    ),
    "config": (
        "parkbot.cli.config",
        "config_group",
        "Check the configuration file (.github/parkbot.yml) before you commit it.",
    ),
}


class LazyGroup(click.Group):
    """A group that imports a command's module only when the command is used.

    It also keeps the ``--json`` contract for what click itself reports: a usage error (an unknown
    option, a missing argument, a bad value) exits 2 and, with ``--json``, prints the same error
    object as every other failure: ``{"error": "usage", "message": ..., "exit_code": 2}``.
    """

    def __init__(self, *args: Any, lazy: dict[str, tuple[str, str, str]], **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.lazy = lazy

    def list_commands(self, ctx: click.Context) -> list[str]:
        return sorted({*self.lazy, *self.commands})

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        if cmd_name in self.commands:
            return self.commands[cmd_name]
        if cmd_name not in self.lazy:
            return None
        module_name, attribute, _ = self.lazy[cmd_name]
        command = getattr(importlib.import_module(module_name), attribute)
        if not isinstance(command, click.Command):  # pragma: no cover - a registration mistake
            raise TypeError(f"{module_name}.{attribute} is not a click command")
        self.commands[cmd_name] = command
        return command

    def json_to_command(self, argv: list[str]) -> list[str]:
        """``parkbot --json list`` is ``parkbot list --json`` (as ``gh`` allows): a ``--json`` before the command
        name moves to the command, when that command takes ``--json``; otherwise it stays where it was."""
        start = 0
        while start < len(argv) and argv[start].startswith("-") and argv[start] != "--":
            start += 1
        if "--json" not in argv[:start]:
            return argv
        ctx = click.Context(self)
        command: click.Command = self
        end = start
        while isinstance(command, click.Group) and end < len(argv):
            found = command.get_command(ctx, argv[end])
            if found is None:
                break
            command, end = found, end + 1
        if command is self or not any("--json" in param.opts for param in command.params):
            return argv
        leading = [arg for arg in argv[:start] if arg != "--json"]
        return [*leading, *argv[start:end], "--json", *argv[end:]]

    def format_commands(self, ctx: click.Context, formatter: click.HelpFormatter) -> None:
        """The command list from the table, without importing a single command."""
        names = self.list_commands(ctx)
        limit = formatter.width - 6 - max(len(name) for name in names)
        rows = []
        for name in names:
            if name in self.lazy:
                rows.append((name, click.Command(name, help=self.lazy[name][2]).get_short_help_str(limit)))
            else:
                rows.append((name, self.commands[name].get_short_help_str(limit)))
        with formatter.section("Commands"):
            formatter.write_dl(rows)

    def main(
        self,
        args: Sequence[str] | None = None,
        prog_name: str | None = None,
        complete_var: str | None = None,
        standalone_mode: bool = True,
        **extra: Any,
    ) -> Any:
        argv = self.json_to_command(list(sys.argv[1:] if args is None else args))
        options = argv[: argv.index("--")] if "--" in argv else argv
        as_json = "--json" in options
        try:
            if as_json and not {"--help", "-h", "--version"}.isdisjoint(options):
                # Even help is one JSON object with --json: {"help": <the text>}.
                printed = io.StringIO()
                with contextlib.redirect_stdout(printed):
                    code = super().main(argv, prog_name, complete_var, standalone_mode=False, **extra)
                click.echo(json.dumps({"help": printed.getvalue()}, indent=2))
            else:
                code = super().main(argv, prog_name, complete_var, standalone_mode=False, **extra)
        except click.ClickException as exc:
            if not standalone_mode:
                raise
            _usage_error(exc, as_json)
        except click.exceptions.Abort:
            if not standalone_mode:
                raise
            click.echo("Aborted!", err=True)
            sys.exit(130)
        except OSError as exc:
            if exc.errno != errno.EPIPE:
                raise
            sys.exit(1)
        if not standalone_mode:
            return code
        sys.exit(code if isinstance(code, int) else 0)


def _usage_error(exc: click.ClickException, as_json: bool) -> None:
    """Every usage error is exit 2 (click uses 1 for a few), and one JSON object with ``--json``."""
    if as_json:
        from parkbot.api.failure import error_object

        click.echo(json.dumps(error_object("usage", exc.format_message(), 2), indent=2))
    exc.show()
    sys.exit(2)


@click.group(
    cls=LazyGroup,
    lazy=COMMANDS,
    context_settings={"help_option_names": ["-h", "--help"], "terminal_width": 110, "max_content_width": 110},
    epilog="Exit codes: 0 done, 1 blocked, 2 invalid input, 3 refused by a rule, 4 backend failure (safe to re-run).",
)
@click.version_option(__version__, prog_name="parkbot")
# Accepted so that `parkbot --version --json` and `parkbot --help --json` are one JSON object too.
@click.option("--json", "as_json", is_flag=True, hidden=True, expose_value=False)
def cli() -> None:
    """Park the questions your agents cannot settle as durable backlog items, and gate what depends on them.

    \b
    The embedded git backlog is the default: no token, no network.
      parkbot park result.json          file a needs_input result
      parkbot gate --ref my-branch      may this branch merge? (exit 1 while blocked)
      parkbot resolve ID --answer opt   answer as an owner
      parkbot guide                     what to tell an agent
    Use --backend github (or PARKBOT_BACKEND=github) to work on GitHub issues instead.
    """


def main() -> None:
    """Console-script entry point.

    It changes nothing in the environment: the processes a command starts (git's helpers, an
    agent's hooks) and the pydantic plugins a user installed see what the user set, no more.
    """
    # The command line just loaded lives as long as the process: keep it out of every collection pass
    # (the last one, as the process exits, would otherwise walk all of it).
    gc.freeze()
    cli.main(prog_name="parkbot")

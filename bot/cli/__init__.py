"""The ``parkbot`` command line: thin click commands over the lifecycle.

Exit codes (a contract): 0 done · 1 blocked · 2 invalid input or usage · 3 refused by a lifecycle
rule · 4 backend failure after retries (safe to run again).
"""

from __future__ import annotations

import sys

import click

from bot import __version__
from bot.cli.config import CONFIG_COMMANDS
from bot.cli.core import COMMANDS
from bot.cli.dashboard import DASHBOARD_COMMANDS
from bot.cli.events import EVENT_COMMANDS
from bot.cli.policy import POLICY_COMMANDS
from bot.cli.report import REPORT_COMMANDS


@click.group(
    context_settings={"help_option_names": ["-h", "--help"], "terminal_width": 110, "max_content_width": 110},
    epilog="Exit codes: 0 done, 1 blocked, 2 invalid input, 3 refused by a rule, 4 backend failure (safe to re-run).",
)
@click.version_option(__version__, prog_name="parkbot")
def cli() -> None:
    """Park the questions your agents cannot settle as durable backlog items, and gate what depends on them.

    \b
    The embedded git backlog is the default: no token, no network.
      parkbot park result.json          file a needs_input result
      parkbot gate --ref my-branch      may this branch merge? (exit 1 while blocked)
      parkbot resolve ID --answer opt   answer as an owner
    Use --backend github (or PARKBOT_BACKEND=github) to work on GitHub issues instead.
    """


for command in [*COMMANDS, *POLICY_COMMANDS, *REPORT_COMMANDS, *DASHBOARD_COMMANDS, *EVENT_COMMANDS, *CONFIG_COMMANDS]:
    cli.add_command(command)


def main() -> None:
    """Console-script entry point; click's own usage errors already exit with 2."""
    try:
        cli.main(prog_name="parkbot", standalone_mode=True)
    except KeyboardInterrupt:  # pragma: no cover - interactive only
        sys.exit(130)

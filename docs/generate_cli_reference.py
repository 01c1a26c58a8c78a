"""Regenerate docs/cli.md from the commands' own --help, so the reference cannot drift from the code.

python docs/generate_cli_reference.py        # rewrite docs/cli.md
python docs/generate_cli_reference.py --check  # exit 1 if docs/cli.md is stale (run by the tests)
"""

from __future__ import annotations

import sys
import textwrap
from pathlib import Path
from typing import get_args

import click

from parkbot.cli import cli
from parkbot.core.errors import Reason

TARGET = Path(__file__).with_name("cli.md")

INTRO = """\
# CLI reference

Generated from `parkbot --help` by `docs/generate_cli_reference.py`; do not edit by hand.

Every command takes `--backend git|github` (env `PARKBOT_BACKEND`, default `git`: the embedded backlog
in the repository containing `--repo`, default the current directory), `--config PATH` (default
`.github/parkbot.yml`) and `--json` (one JSON object on stdout, for machines). On GitHub the settings come
from `GITHUB_TOKEN`, `GITHUB_REPOSITORY` and `GITHUB_API_URL`.

## Exit codes (contract)

| code | meaning |
| --- | --- |
| 0 | done |
| 1 | blocked: the gate is closed, or `wait`/`resume` found no answer yet |
| 2 | invalid input or usage (the message names the field to fix) |
| 3 | refused by a lifecycle rule: identity collision, reopening a resolved decision, a conflicting answer, not an owner, a question budget reached, a sideways escalation, a re-filing that lowers `blocking` or changes the options while an answer is recorded, an answer given before the options changed, answers that conflicted in `sync` |
| 4 | backend failure after bounded retries: safe to run the same command again |

With `--json`, every outcome is exactly one JSON object on stdout: the command's result, or for any
failure `{"error": <reason>, "message": ..., "exit_code": ...}` (the message is on stderr as well; a
decision id that is not in the backlog adds `"did_you_mean"`, the closest ids that are). `--json` may also
come before the command name (`parkbot --json list`). Without `--json`, the text shows every field of the
same object.
<<REASONS>>
Usage errors that click reports (an unknown option, a missing argument, a malformed value such as
`--timeout nan`) are exit 2 with `"error": "usage"`. The Python API (`from parkbot import Backlog`) and
`parkbot mcp` return the same objects; see [agents.md](agents.md).

Durations (`wait --timeout`, `report --since`, `list --answered-since`) are written `90s`, `10m`,
`1m30s`, `2h`, `7d`; `--since` and `--answered-since` also take an ISO date.

## `--json` output of `park` and `show` (contract)

`park` prints at least `id` (the derived decision id), `action` (`created`, `updated`, `unchanged`) and
where the decision lives (`number` and `url` on GitHub, `ref` and `path` in git; the other two are
`null`). `show` adds `state` (`open`, `resolved`, `abandoned`), `owner`, `answer` and `dependents`.
`wait` and `resume` print the same resume context (`state`, `answer`, `assumption`, `work_so_far`, ...).
"""


def render() -> str:
    """The reference: the introduction (with every reason code, from the code's one list) and each command's help."""
    codes = ", ".join(f"`{code}`" for code in get_args(Reason))
    reasons = textwrap.fill(
        "Every reason code a failure can carry (the `error` here, the `reason` in the data of `handle-event`'s "
        f"items) stays the same from one version to the next: {codes}.",
        width=105,
        break_on_hyphens=False,
    )
    parts = [INTRO.replace("<<REASONS>>", reasons)]
    ctx = click.Context(cli, info_name="parkbot", terminal_width=100, max_content_width=100)
    parts.append("## parkbot\n\n```text\n" + cli.get_help(ctx) + "\n```\n")
    for name in cli.list_commands(ctx):
        command = cli.get_command(ctx, name)
        assert command is not None, name
        sub = click.Context(command, parent=ctx, info_name=name, terminal_width=100, max_content_width=100)
        parts.append(f"## parkbot {name}\n\n```text\n{command.get_help(sub)}\n```\n")
        if isinstance(command, click.Group):
            for child_name in sorted(command.commands):
                child = command.commands[child_name]
                inner = click.Context(
                    child, parent=sub, info_name=child_name, terminal_width=100, max_content_width=100
                )
                parts.append(f"## parkbot {name} {child_name}\n\n```text\n{child.get_help(inner)}\n```\n")
    return "\n".join(parts)


def main() -> int:
    text = render()
    if "--check" in sys.argv:
        if not TARGET.exists() or TARGET.read_text(encoding="utf-8") != text:
            print(f"{TARGET} is stale: run python docs/generate_cli_reference.py", file=sys.stderr)
            return 1
        return 0
    TARGET.write_text(text, encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""``parkbot report``: the question log as numbers and pictures, over a time window."""

from __future__ import annotations

import sys
from collections.abc import Iterable, Iterator
from datetime import datetime
from pathlib import Path
from typing import TypeVar

import click

from parkbot.cli.common import State, backend_options, whole_scan
from parkbot.cli.params import MomentType
from parkbot.core import lifecycle
from parkbot.core.durations import moment
from parkbot.core.errors import InvalidInput
from parkbot.core.models import LogEntry, utcnow
from parkbot.core.tracker import Tracker
from parkbot.report import FORMATS, Linker, run_report
from parkbot.terminal import printable

T = TypeVar("T")
#: The format an --output file's extension names, when --format does not say.
EXTENSIONS = {".md": "md", ".markdown": "md", ".json": "json", ".html": "html", ".htm": "html"}


def parse_since(value: str, now: datetime) -> datetime:
    """``30d``, ``2w``, ``12h``, ``1m30s`` before ``now``, or an ISO date or date-time (UTC unless it says so)."""
    return moment(value, now, what="--since")


def with_progress(items: Iterable[T], label: str) -> Iterator[T]:
    """``items``, with a progress bar on stderr when (and only when) stderr is a terminal."""
    if not sys.stderr.isatty():
        yield from items
        return
    with click.progressbar(items, label=label, file=sys.stderr, show_pos=True) as bar:
        yield from bar


def _events(tracker: Tracker) -> Iterable[LogEntry]:
    """Refusals from the question log: a refused question was never parked, so only the log has it."""
    return (entry for entry in tracker.iter_log() if entry.event == "refused")


def _linker(tracker: Tracker) -> Linker | None:
    """Where the report links a decision: its web address. A decision in the embedded git backlog has none
    (it lives at a ref and a path), so the report does not ask for the location of each of them."""
    if tracker.backend == "git":
        return None
    return lambda decision: tracker.location(decision).url


@click.command()
@click.option(
    "--since",
    type=MomentType(),
    default="30d",
    show_default=True,
    help="Start of the window: a span back from now (30d, 2w, 12h, 1m30s) or an ISO date (2024-05-01).",
)
@click.option(
    "--format",
    "fmt",
    type=click.Choice(FORMATS),
    default=None,
    help="md (GitHub step summaries and issues), json (machines), html (one self-contained page). "
    "Default: the --output file's extension (.md, .json, .html), else md, or json with --json.",
)
@click.option(
    "--output",
    "-o",
    type=click.Path(dir_okay=False, writable=True),
    default=None,
    help="Write the report to this file instead of stdout; its extension picks the format.",
)
@backend_options
def report(state: State, since: datetime, fmt: str | None, output: str | None) -> None:
    """Report what the agents asked: counts, time to answer, the weekly rate, recurring questions.

    Recurring questions (same key, or the same text once numbers, ids and quoted strings are set
    aside) asked by different origins or runs are gaps in the delegation template: each comes with a
    line to add to it. Guess vs answer is the share of answers that differ from the agent's guess.
    See docs/report.md for what each figure means.

    \b
    Example:
      parkbot report --since 30d >> "$GITHUB_STEP_SUMMARY"
      parkbot report --since 2024-05-01 -o report.html     # html, from the extension
    """
    now = utcnow()
    if fmt is None and output is not None:
        fmt = EXTENSIONS.get(Path(output).suffix.lower())
        if state.as_json and fmt not in (None, "json"):
            raise InvalidInput(f"--json asks for JSON but {output} names {fmt}; give --format json or another file")
    if fmt is None:
        fmt = "json" if state.as_json else "md"
    elif state.as_json and fmt != "json":
        raise InvalidInput(f"--json asks for JSON but --format is {fmt}; give one of them")
    tracker = state.backend.tracker
    decisions = with_progress(lifecycle.decisions(tracker, state.backend.config), "Reading decisions")
    with whole_scan():
        text = printable(run_report(decisions, _events(tracker), since, now, fmt, link=_linker(tracker)))
    if output is None:
        click.echo(text, nl=False)
        return
    try:
        with open(output, "w", encoding="utf-8") as handle:
            handle.write(text)
    except OSError as exc:
        raise InvalidInput(f"cannot write {output}: {exc.strerror}") from exc
    click.echo(f"wrote the {fmt} report to {output}", err=True)


REPORT_COMMANDS = [report]

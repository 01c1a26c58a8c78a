"""Talking to the GitHub Actions runner safely: step outputs, the job summary, annotations.

Everything parkbot shows in a run can hold text it did not write (an agent's question, a comment, a
branch or file name), and the runner treats some of what a step prints as *workflow commands*. So:

* **annotations** (``::error::``, ``::warning::``, ``::notice::``) escape ``%``, ``\\r`` and ``\\n`` in
  the message (and ``:`` and ``,`` in properties), as the runner's own toolkit does, so a message is
  always exactly one command line: agent text cannot end it and start a command of its own;
* **any other untrusted text** printed to the log goes between ``::stop-commands::<token>`` and
  ``::<token>::`` with a fresh random token, the runner's documented way to print text verbatim
  (:func:`untrusted`): inside, neither ``::set-output``/``::add-mask`` nor the legacy ``##[...]``
  forms are acted on;
* **step outputs** are appended to ``$GITHUB_OUTPUT`` in the multi-line form ``name<<DELIM`` with a
  random delimiter that is checked not to occur in the value, so a value cannot add outputs of its
  own (:func:`write_outputs`);
* the **job summary** is Markdown appended to ``$GITHUB_STEP_SUMMARY``; untrusted text goes through
  :func:`md` (no HTML, no mentions, no links or images, one line).

The token is never printed: nothing here reads it, and the action passes it only through ``env:``.

``python -m parkbot.actions_output`` is the entry point of ``actions/parkbot/action.yml``: it reads the
action's inputs from the environment (``PARKBOT_*``), runs one ``parkbot`` command without any shell
(arguments are split with :func:`shlex.split`, never evaluated), and turns the result into outputs,
a summary and annotations.
"""

from __future__ import annotations

import json
import os
import re
import secrets
import shlex
import subprocess
import sys
from collections.abc import Iterable, Mapping
from typing import IO, Any

from parkbot.markdown import literal, table_code, truncate
from parkbot.terminal import printable
from parkbot.workflow_commands import (  # noqa: F401 - the escaping is re-exported: callers and tests use it from here
    AnnotationLevel,
    annotation,
    escape_data,
    escape_property,
    workflow_command,
)

_OUTPUT_NAME = re.compile(r"^[A-Za-z_][A-Za-z0-9_-]*$")


def untrusted(text: str, token: str | None = None) -> str:
    """``text`` between ``::stop-commands::`` and its end marker: shown verbatim, never acted on."""
    token = token or secrets.token_hex(16)
    while token in text:  # pragma: no cover - 128 random bits
        token = secrets.token_hex(16)
    body = text if text.endswith("\n") else text + "\n"
    return f"::stop-commands::{token}\n{body}::{token}::\n"


# --- step outputs and the job summary ------------------------------------------------------------


def format_outputs(values: Mapping[str, Any], delimiter: str | None = None) -> str:
    """``name<<DELIM\\nvalue\\nDELIM`` blocks; None values are left out, others are made strings."""
    lines: list[str] = []
    for name, value in values.items():
        if value is None:
            continue
        if not _OUTPUT_NAME.match(name):
            raise ValueError(f"invalid output name {name!r}")
        text = value if isinstance(value, str) else json.dumps(value) if isinstance(value, list | dict) else str(value)
        delim = delimiter or f"ghadelimiter_{secrets.token_hex(16)}"
        if delim in text:
            if delimiter is not None:
                raise ValueError("the delimiter occurs in the value")
            while delim in text:  # pragma: no cover - 128 random bits
                delim = f"ghadelimiter_{secrets.token_hex(16)}"
        lines += [f"{name}<<{delim}", text, delim]
    return "\n".join(lines) + ("\n" if lines else "")


def write_outputs(path: str | None, values: Mapping[str, Any]) -> bool:
    """Append step outputs to ``$GITHUB_OUTPUT``; False when not running in Actions."""
    if not path:
        return False
    text = format_outputs(values)
    with open(path, "a", encoding="utf-8") as handle:
        handle.write(text)
    return True


def append_summary(path: str | None, markdown: str) -> bool:
    """Append to ``$GITHUB_STEP_SUMMARY``; False when not running in Actions."""
    if not path:
        return False
    with open(path, "a", encoding="utf-8") as handle:
        handle.write(markdown if markdown.endswith("\n") else markdown + "\n")
    return True


def md(text: str, limit: int = 500) -> str:
    """Untrusted text for one Markdown line or table cell: no HTML, no mention, no link, no image.

    :func:`parkbot.markdown.literal`, on at most ``limit`` characters: a job summary is no place for an
    agent's essay.
    """
    return literal(truncate(" ".join(str(text).split()), limit))


def md_code(text: str) -> str:
    """Untrusted text as inline code (ids, refs) in a line or a table cell: nothing inside renders or pings."""
    return table_code(str(text))


def table(headers: Iterable[str], rows: Iterable[Iterable[str]]) -> str:
    """A Markdown table whose cells are already safe (built with :func:`md` / :func:`md_code`)."""
    head = list(headers)
    out = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    out += ["| " + " | ".join(row) + " |" for row in rows]
    return "\n".join(out)


class Actions:
    """Where this run talks to the runner (paths from the environment given, never ``os.environ`` itself)."""

    def __init__(self, env: Mapping[str, str]) -> None:
        self.active = env.get("GITHUB_ACTIONS") == "true"
        self.output_path = env.get("GITHUB_OUTPUT") or None
        self.summary_path = env.get("GITHUB_STEP_SUMMARY") or None

    def annotate(self, level: AnnotationLevel, message: str, stream: IO[str], *, title: str | None = None) -> None:
        """An annotation in Actions; a plain ``parkbot: level: message`` line elsewhere."""
        if self.active:
            stream.write(annotation(level, printable(message), title=title) + "\n")
        else:
            stream.write(f"parkbot: {level}: {printable(message)}\n")

    def show(self, text: str, stream: IO[str]) -> None:
        """Untrusted text for the log: control characters escaped, inside a stop-commands block when in Actions."""
        if not text:
            return
        text = printable(text)
        stream.write(untrusted(text) if self.active else (text if text.endswith("\n") else text + "\n"))


# --- the action's entry point ----------------------------------------------------------------------

#: Commands the action may run besides handle-event, and whether they take ``--json``.
ACTION_COMMANDS: dict[str, bool] = {
    "park": True,
    "gate": True,
    "report": False,
    "show": True,
    "list": True,
    "resolve": True,
    "escalate": True,
    "schema": False,
    "resume": False,
    "wait": True,
    "dashboard": True,
}


def _flag(value: str | None, default: bool = True) -> bool:
    if value is None or not value.strip():
        return default
    return value.strip().lower() in ("1", "true", "yes", "on")


def run_action(env: Mapping[str, str], stdout: IO[str], stderr: IO[str]) -> int:
    """Run the command the action's inputs ask for; the exit code to pass on."""
    actions = Actions(env)
    command = (env.get("PARKBOT_COMMAND") or "handle-event").strip()
    try:
        args = shlex.split(env.get("PARKBOT_ARGS") or "")
    except ValueError as exc:
        actions.annotate("error", f"the args input cannot be split: {exc}", stderr)
        return 2
    if command == "handle-event":
        argv = [sys.executable, "-m", "parkbot.cli.events", *args]
        for option, name in (
            ("--event-name", "PARKBOT_EVENT_NAME"),
            ("--event-path", "PARKBOT_EVENT_PATH"),
            ("--config", "PARKBOT_CONFIG"),
            ("--repo", "PARKBOT_REPOSITORY_PATH"),
        ):
            if env.get(name):
                argv += [option, env[name]]
        if not _flag(env.get("PARKBOT_SUMMARY")):
            argv.append("--no-summary")
        # handle-event fences untrusted text and escapes its annotations itself: pass its output through.
        done = subprocess.run(argv, env=dict(env), capture_output=True, text=True, check=False)
        stdout.write(done.stdout)
        stderr.write(done.stderr)
        return done.returncode
    if command not in ACTION_COMMANDS:
        choices = ", ".join(["handle-event", *ACTION_COMMANDS])
        actions.annotate("error", f"unknown command {command!r}: choose one of {choices}", stderr)
        return 2
    return _run_command(command, args, env, actions, stdout, stderr)


def _run_command(
    command: str, args: list[str], env: Mapping[str, str], actions: Actions, stdout: IO[str], stderr: IO[str]
) -> int:
    argv = [sys.executable, "-m", "parkbot", command, *args]
    if env.get("PARKBOT_CONFIG") and "--config" not in args and command != "schema":
        argv += ["--config", env["PARKBOT_CONFIG"]]
    if env.get("PARKBOT_REPOSITORY_PATH") and "--repo" not in args and command != "schema":
        argv += ["--repo", env["PARKBOT_REPOSITORY_PATH"]]
    if ACTION_COMMANDS[command] and "--json" not in args:
        argv.append("--json")
    child_env = dict(env)
    done = subprocess.run(argv, env=child_env, capture_output=True, text=True, check=False)
    actions.show(done.stdout, stdout)
    actions.show(done.stderr, stderr)
    data = _json_object(done.stdout)
    values = {
        "decision-id": data.get("id") if data else None,
        "issue-number": data.get("number") if data else None,
        "gate-state": _gate_state(command, data, done.returncode),
        "exit-code": done.returncode,
        "result": json.dumps(data, separators=(",", ":"), default=str) if data else None,
    }
    actions_outputs = {k: v for k, v in values.items() if v is not None}
    write_outputs(actions.output_path, actions_outputs)
    if _flag(env.get("PARKBOT_SUMMARY")):
        append_summary(actions.summary_path, _command_summary(command, args, done.returncode, data, done.stdout))
    if done.returncode == 1 and command in ("gate", "wait"):
        actions.annotate("notice", f"parkbot {command}: blocked (exit 1)", stderr)
    elif done.returncode:
        last = next((line for line in reversed(done.stderr.splitlines()) if line.strip()), "")
        actions.annotate("error", f"parkbot {command} exited {done.returncode}: {last}", stderr)
    return done.returncode


def _json_object(text: str) -> dict[str, Any] | None:
    try:
        data = json.loads(text)
    except (json.JSONDecodeError, ValueError):
        return None
    return data if isinstance(data, dict) else None


def _gate_state(command: str, data: dict[str, Any] | None, code: int) -> str | None:
    if command != "gate":
        gates = (data or {}).get("gates") or []
        states = {g.get("state") for g in gates if isinstance(g, dict)}
        return "blocked" if "blocked" in states else ("open" if states else None)
    state = data.get("state") if data else None
    if isinstance(state, str):
        return state
    return "blocked" if code == 1 else ("open" if code == 0 else None)


def _command_summary(command: str, args: list[str], code: int, data: dict[str, Any] | None, stdout: str) -> str:
    shown = " ".join(shlex.quote(a) for a in [command, *args])
    lines = [f"### parkbot {md(command)}", "", f"{md_code('parkbot ' + shown)} exited {code}.", ""]
    if data:
        rows = [[md(k), md_code(json.dumps(v, default=str) if not isinstance(v, str) else v)] for k, v in data.items()]
        lines += [table(["field", "value"], rows[:30]), ""]
    elif command == "report" and code == 0 and stdout.strip():
        # The report's Markdown is made for step summaries (it escapes what it shows).
        lines += [stdout.strip(), ""]
    return "\n".join(lines)


def main() -> None:  # pragma: no cover - exercised through the action
    sys.exit(run_action(os.environ, sys.stdout, sys.stderr))


if __name__ == "__main__":  # pragma: no cover
    main()

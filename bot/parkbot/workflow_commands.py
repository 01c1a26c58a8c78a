"""GitHub Actions workflow commands (``::notice::``, ``::error::`` ...), escaped as the runner's toolkit escapes them.

Shared by :mod:`parkbot.actions_output` (what a step prints) and the GitHub adapter (a wait shown as one
notice), so neither imports the other: a message is always exactly one command line, and text parkbot did
not write cannot end it and start a command of its own.
"""

from __future__ import annotations

import re
from typing import Literal

AnnotationLevel = Literal["error", "warning", "notice", "debug"]


def escape_data(text: str) -> str:
    """A workflow-command message: ``%``, ``\\r`` and ``\\n`` percent-encoded (the toolkit's escapeData)."""
    return text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def escape_property(text: str) -> str:
    """A workflow-command property value: also ``:`` and ``,`` (the toolkit's escapeProperty)."""
    return escape_data(text).replace(":", "%3A").replace(",", "%2C")


def workflow_command(command: str, message: str, **properties: str | int | None) -> str:
    """``::command key=value,...::message``, every part escaped."""
    if not re.fullmatch(r"[a-z][a-z-]*", command):
        raise ValueError(f"not a workflow command: {command!r}")
    props = ",".join(
        f"{key}={escape_property(str(value))}" for key, value in properties.items() if value is not None and value != ""
    )
    return f"::{command}{' ' + props if props else ''}::{escape_data(message)}"


def annotation(level: AnnotationLevel, message: str, *, title: str | None = None) -> str:
    """``::notice::message`` (or error, warning, debug): one line, whatever ``message`` holds."""
    return workflow_command(level, message, title=title)

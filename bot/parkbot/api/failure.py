"""The error object: the one JSON shape of every failure, on every surface.

The command line's ``--json`` (every command, ``config check``, ``doctor``, usage errors), ``handle-event``
and the MCP server's tool errors all print a failure as this object (docs/cli.md): the reason code, the
message in the words of that surface, the exit code, and the closest decision ids when the one given
is not there. Made here, once, so no surface can drift from the others.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, NotRequired, TypedDict

if TYPE_CHECKING:
    from parkbot.core.errors import ParkbotError


class ErrorObject(TypedDict):
    """``{"error": <reason>, "message": ..., "exit_code": ...}``, and ``did_you_mean`` when there are ids to suggest."""

    error: str
    message: str
    exit_code: int
    did_you_mean: NotRequired[list[str]]


def error_object(reason: str, message: str, exit_code: int, suggestions: Sequence[str] = ()) -> ErrorObject:
    """The error object of a failure with this reason code, message and exit code."""
    data: ErrorObject = {"error": reason, "message": message, "exit_code": int(exit_code)}
    if suggestions:
        data["did_you_mean"] = list(suggestions)
    return data


def failure_of(exc: ParkbotError, message: str | None = None) -> ErrorObject:
    """The error object of ``exc``, its message as the surface words it (the core's own by default)."""
    return error_object(exc.reason, exc.message if message is None else message, int(exc.exit_code), exc.suggestions)

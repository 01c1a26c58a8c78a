"""Click parameter types over :mod:`parkbot.core.durations`: one way to write a duration on every option.

:mod:`parkbot.core.durations` loads when a value is converted, not with the command that declares the
option: ``gate``, ``show`` and ``list`` without a duration never load it.
"""

from __future__ import annotations

from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any

import click

from parkbot.core.errors import InvalidInput
from parkbot.core.lazy import exports

if TYPE_CHECKING:
    from parkbot.core.durations import EXAMPLES, Duration
else:
    __getattr__, __dir__ = exports(__name__, {"EXAMPLES": "parkbot.core.durations"})


class DurationType(click.ParamType):  # type: ignore[type-arg]  # generic only from click 8.2
    """``90s``, ``10m``, ``1m30s``, ``2h``, ``7d``; a wrong one is a usage error (exit 2) saying what to type."""

    name = "duration"

    def __init__(self, *, allow_zero: bool = False) -> None:
        self.allow_zero = allow_zero

    def get_metavar(self, param: click.Parameter, ctx: click.Context) -> str:
        return "DURATION"

    def convert(self, value: Any, param: click.Parameter | None, ctx: click.Context | None) -> Duration:
        from parkbot.core.durations import Duration

        if isinstance(value, Duration):
            return value
        try:
            return Duration.parse(str(value), what="", allow_zero=self.allow_zero)
        except InvalidInput as exc:
            self.fail(exc.message, param, ctx)


class MomentType(click.ParamType):  # type: ignore[type-arg]  # generic only from click 8.2
    """A moment in the past: a duration back from now (``30d``, ``1h``) or an ISO date (``2024-05-01``)."""

    name = "moment"

    def get_metavar(self, param: click.Parameter, ctx: click.Context) -> str:
        return "DURATION|DATE"

    def convert(self, value: Any, param: click.Parameter | None, ctx: click.Context | None) -> datetime:
        if isinstance(value, datetime):
            return value
        from parkbot.core.durations import moment

        try:
            return moment(str(value), datetime.now(UTC).replace(microsecond=0), what="")
        except InvalidInput as exc:
            self.fail(exc.message, param, ctx)


__all__ = ["EXAMPLES", "DurationType", "MomentType"]

"""Durations and moments, one way everywhere: ``90s``, ``10m``, ``1m30s``, ``2h``, ``7d``.

Parsing is durationpy's (Go's duration syntax, plus ``d`` and ``w``: numbers each followed by a
unit, no spaces), not a hand-written pattern. On top of it this module says what parkbot accepts
and how to fix what it does not: a bare number has no unit, a negative span counts backwards, and a
zero span is refused wherever it means nothing (an empty window). Every refusal is an
:class:`~parkbot.core.errors.InvalidInput` (exit 2) that names the option and shows what to type.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from typing import Any, ClassVar

from parkbot.core.errors import InvalidInput

#: What the messages show as the accepted forms.
EXAMPLES = "90s, 10m, 1m30s, 2h or 7d"
#: Units as people type them (durationpy also reads ns, us, ms, mm = 30 days and y = 365 days).
UNITS = {"s": "seconds", "m": "minutes", "h": "hours", "d": "days", "w": "weeks"}
_BARE_NUMBER = re.compile(r"[+-]?[0-9]+(?:\.[0-9]*)?")


@dataclass(frozen=True, order=True)
class Duration:
    """A non-negative span of time, remembered as typed (``str(d)`` is what the user wrote)."""

    seconds: float
    text: str = field(compare=False)

    @classmethod
    def parse(cls, text: str, *, what: str = "duration", allow_zero: bool = False) -> Duration:
        """Read ``text``; ``what`` names the option in messages (``--timeout``)."""
        from durationpy import DurationError, from_str

        if not isinstance(text, str):
            raise InvalidInput(f"{what}: a duration is text such as {EXAMPLES}, not {type(text).__name__}")
        written = text.strip().lower()
        if _BARE_NUMBER.fullmatch(written) and float(written) != 0:  # zero needs no unit, as in Go
            number = written.lstrip("+")
            raise InvalidInput(
                f"{_about(what, text)} has no unit: write {number}s (seconds), {number}m, {number}h or {number}d"
            )
        try:
            span = from_str(written)
        except DurationError as exc:
            if "out of range" in str(exc):
                raise InvalidInput(f"{_about(what, text)} is longer than parkbot can count: e.g. {EXAMPLES}") from None
            raise InvalidInput(
                f"{_about(what, text)} is not a duration: write a number and a unit, e.g. {EXAMPLES}"
            ) from None
        seconds = span.total_seconds()
        if not math.isfinite(seconds):  # pragma: no cover - durationpy never returns one; kept as a guard
            raise InvalidInput(f"{_about(what, text)} is not a finite duration: e.g. {EXAMPLES}")
        if seconds < 0:
            raise InvalidInput(
                f"{_about(what, text)} is negative: a duration counts forward; write {written.lstrip('-')}"
            )
        if seconds == 0 and not allow_zero:
            raise InvalidInput(
                f"{_about(what, text)} is zero, which means nothing here: give a length, e.g. {EXAMPLES}"
            )
        return cls(seconds, written)

    @classmethod
    def of(
        cls, value: Duration | timedelta | float | int | str, *, what: str = "duration", allow_zero: bool = False
    ) -> Duration:
        """A Duration from what a Python caller may hand over: text, a timedelta or seconds."""
        if isinstance(value, Duration):
            seconds, text = value.seconds, value.text
        elif isinstance(value, str):
            return cls.parse(value, what=what, allow_zero=allow_zero)
        elif isinstance(value, timedelta):
            seconds, text = value.total_seconds(), f"{value.total_seconds():g}s"
        elif isinstance(value, int | float) and not isinstance(value, bool):
            seconds, text = float(value), f"{value:g}s"
        else:
            raise InvalidInput(f"{what}: expected a duration such as {EXAMPLES}, got {type(value).__name__}")
        if not math.isfinite(seconds):
            raise InvalidInput(f"{_about(what, text)} is not a finite duration: e.g. {EXAMPLES}")
        if seconds < 0:
            raise InvalidInput(f"{_about(what, text)} is negative: a duration counts forward")
        if seconds == 0 and not allow_zero:
            raise InvalidInput(
                f"{_about(what, text)} is zero, which means nothing here: give a length, e.g. {EXAMPLES}"
            )
        return cls(seconds, text)

    @property
    def timedelta(self) -> timedelta:
        return timedelta(seconds=self.seconds)

    def before(self, now: datetime, *, what: str = "duration") -> datetime:
        """The moment this long before ``now``."""
        try:
            return now - self.timedelta
        except OverflowError:
            raise InvalidInput(f"{_about(what, self.text)} reaches before the year 1") from None

    def __str__(self) -> str:
        return self.text

    # -- as a pydantic field type (a setting such as ``wait_timeout: 10m``) ----------------------
    #: Whether zero is a meaningful value of the setting (see :class:`DurationOrZero`).
    zero_allowed: ClassVar[bool] = False

    @classmethod
    def __get_pydantic_core_schema__(cls, source: Any, handler: Any) -> Any:
        from pydantic_core import core_schema

        def parse(value: Any) -> Duration:
            try:
                return cls.of(value, what="", allow_zero=cls.zero_allowed)
            except InvalidInput as exc:
                raise ValueError(exc.message) from None

        return core_schema.no_info_plain_validator_function(
            parse, serialization=core_schema.plain_serializer_function_ser_schema(str)
        )

    @classmethod
    def __get_pydantic_json_schema__(cls, schema: Any, handler: Any) -> dict[str, Any]:
        return {"type": "string", "description": f"A duration: {EXAMPLES}.", "examples": ["10m", "1m30s", "7d"]}


class DurationOrZero(Duration):
    """A setting where ``0`` means something (``rate_limit_wait: 0``: never wait)."""

    zero_allowed: ClassVar[bool] = True


def _about(what: str, text: str) -> str:
    """``--timeout 'nan'`` in messages, or just ``'nan'`` where the option is already named."""
    return f"{what} {text!r}" if what else repr(text)


def moment(text: str, now: datetime, *, what: str = "moment") -> datetime:
    """A point in the past: a :class:`Duration` back from ``now`` (``30d``), or an ISO date or date-time.

    A date-time without a zone is UTC. A moment in the future is refused: nothing has happened there yet.
    """
    written = text.strip()
    try:
        parsed = datetime.fromisoformat(written)
    except ValueError:
        parsed = None
    if parsed is None:
        try:
            return Duration.parse(written, what=what).before(now, what=what)
        except InvalidInput as exc:
            if "not a duration" not in exc.message:
                raise
            raise InvalidInput(
                f"{_about(what, text)}: use a span back from now such as 30d, 12h or 1m30s, "
                "or an ISO date such as 2024-05-01"
            ) from None
    parsed = parsed.replace(tzinfo=UTC) if parsed.tzinfo is None else parsed.astimezone(UTC)
    if parsed > now:
        raise InvalidInput(f"{_about(what, text)} is in the future")
    return parsed

"""What every result shares: its ``--json`` and text for people, its exit code, where its decision lives."""

from __future__ import annotations

from typing import Any, Self

from parkbot.core.errors import ExitCode
from parkbot.core.modeling import ConfigDict, Model, PrivateAttr
from parkbot.core.tracker import Location
from parkbot.details import Shown, detail_lines

__all__ = ["FILED_SHOWN", "LOCATION_SHOWN", "LocatedResult", "ResultBase", "location_fields", "location_of", "where"]


class ResultBase(Model):
    """A command's outcome: ``model_dump(mode="json")`` is its ``--json``, ``text()`` its output for people."""

    model_config = ConfigDict(frozen=True, extra="forbid", defer_build=True)
    _text: str = PrivateAttr(default="")

    @property
    def exit_code(self) -> ExitCode:
        return ExitCode.OK

    def text(self) -> str:
        return self._text

    def _told(self, text: str, shown: Shown | None = None, *, indent: str = "  ", last: str | None = None) -> Self:
        """The text: ``text`` for people, then every other field of the ``--json`` object (:mod:`parkbot.details`;
        ``shown`` names the fields ``text`` already shows), then ``last``."""
        details = detail_lines(self.model_dump(mode="json", by_alias=True), shown, indent)
        self._text = "\n".join([text, *details, *([last] if last is not None else [])])
        return self


class LocatedResult(ResultBase):
    """Where a decision lives: ``number``/``url`` on GitHub, ``ref``/``path`` in git."""

    backend: str
    ref: str | None = None
    path: str | None = None
    number: int | None = None
    url: str | None = None


def location_fields(location: Location) -> dict[str, Any]:
    return {
        "backend": location.backend,
        "ref": location.ref,
        "path": location.path,
        "number": location.number,
        "url": location.url,
    }


def where(location: Location) -> str:
    if location.url:
        return f"#{location.number} {location.url}"
    return f"{location.ref or ''}:{location.path or ''}"


#: What the first line of a filed or answered item shows (its location is shown there too, for a filing).
LOCATION_SHOWN: Shown = {"ref": None, "path": None, "number": None, "url": None}
FILED_SHOWN: Shown = {"id": None, "action": None, "owner": None, **LOCATION_SHOWN}


def location_of(result: LocatedResult) -> Location:
    """Where a result says its decision lives."""
    return Location(result.backend, result.ref, result.path, result.number, result.url)


# Last, once every model exists: validators from schemas generated ahead of time (parkbot.core.prebuilt).
from parkbot.api.results import prebuilt_base_schemas as _generated  # noqa: E402
from parkbot.core.prebuilt import install_from  # noqa: E402

install_from(_generated)

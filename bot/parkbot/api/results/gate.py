"""``gate``: whether a dependent may proceed."""

from __future__ import annotations

from typing import Literal

from parkbot.api.results.base import ResultBase
from parkbot.core.errors import ExitCode
from parkbot.core.modeling import Field
from parkbot.core.tracker import GateResult

__all__ = ["GateReport"]


class GateReport(ResultBase):
    """Whether a dependent may proceed (``open``) or waits for decisions (``blocked``, exit 1)."""

    target: str
    state: Literal["open", "blocked"]
    blocking: list[str] = Field(description="Ids of the open decisions it waits for.")
    resolved: list[str] = Field(description="Ids of the linked decisions already answered.")
    note: str | None = None

    @property
    def exit_code(self) -> ExitCode:
        return ExitCode.BLOCKED if self.state == "blocked" else ExitCode.OK

    @classmethod
    def of(cls, result: GateResult) -> GateReport:
        report = cls(
            target=result.target,
            state=result.state,
            blocking=[d.id for d in result.blocking],
            resolved=[d.id for d in result.resolved],
            note=result.note or None,
        )
        shown = {"target": None, "state": None, "blocking": None}
        if not result.blocking:
            return report._told(f"{result.target}: open (no open decision blocks it)", shown)
        lines = [f"{result.target}: blocked by {len(result.blocking)} open decision(s)"]
        lines += [f"  {d.id}  {d.title}  (owner {d.owner})" for d in result.blocking]
        return report._told("\n".join(lines), shown)


# Last, once every model exists: validators from schemas generated ahead of time (parkbot.core.prebuilt).
from parkbot.api.results import prebuilt_gate_schemas as _generated  # noqa: E402
from parkbot.core.prebuilt import install_from  # noqa: E402

install_from(_generated)

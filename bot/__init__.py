"""parkbot: an unanswered question is work, so put it where you keep work.

Agents return ``needs_input`` results; parkbot turns each one into a durable backlog item
(an issue on GitHub, or an item on a ref of the repository itself), blocks what depends on it,
and records the owner's answer through a re-runnable, multi-step resolution.

The Python API, importable from here::

    from bot import Backlog, Refused

    backlog = Backlog.open(repo=".", backend="git")
    filed = backlog.park({"status": "needs_input", ...})

Importing ``bot`` loads nothing else: every name below is imported on first use.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

__version__ = "0.1.0"

#: Public name -> the module that defines it.
_EXPORTS = {
    "Backlog": "bot.api",
    "DecisionItem": "bot.api",
    "DecisionList": "bot.api",
    "DecisionView": "bot.api",
    "Filed": "bot.api",
    "GateReport": "bot.api",
    "Inventory": "bot.api",
    "Requested": "bot.api",
    "Resolved": "bot.api",
    "ResumeContext": "bot.api",
    "Synced": "bot.api",
    "ParkbotError": "bot.core.errors",
    "InvalidInput": "bot.core.errors",
    "NotFound": "bot.core.errors",
    "Refused": "bot.core.errors",
    "BackendFailure": "bot.core.errors",
    "ConcurrentChange": "bot.core.errors",
    "ExitCode": "bot.core.errors",
    "Duration": "bot.core.durations",
    "NeedsInput": "bot.core.models",
    "DoneWithAssumptions": "bot.core.models",
    "Done": "bot.core.models",
    "Failed": "bot.core.models",
    "parse_result": "bot.core.models",
    "result_json_schema": "bot.core.models",
}

__all__ = [
    "BackendFailure",
    "Backlog",
    "ConcurrentChange",
    "DecisionItem",
    "DecisionList",
    "DecisionView",
    "Done",
    "DoneWithAssumptions",
    "Duration",
    "ExitCode",
    "Failed",
    "Filed",
    "GateReport",
    "InvalidInput",
    "Inventory",
    "NeedsInput",
    "NotFound",
    "ParkbotError",
    "Refused",
    "Requested",
    "Resolved",
    "ResumeContext",
    "Synced",
    "__version__",
    "parse_result",
    "result_json_schema",
]

if TYPE_CHECKING:
    from bot.api import (
        Backlog,
        DecisionItem,
        DecisionList,
        DecisionView,
        Filed,
        GateReport,
        Inventory,
        Requested,
        Resolved,
        ResumeContext,
        Synced,
    )
    from bot.core.durations import Duration
    from bot.core.errors import (
        BackendFailure,
        ConcurrentChange,
        ExitCode,
        InvalidInput,
        NotFound,
        ParkbotError,
        Refused,
    )
    from bot.core.models import Done, DoneWithAssumptions, Failed, NeedsInput, parse_result, result_json_schema


def __getattr__(name: str) -> Any:
    module = _EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module 'bot' has no attribute {name!r}")
    value = getattr(importlib.import_module(module), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted({*globals(), *_EXPORTS})

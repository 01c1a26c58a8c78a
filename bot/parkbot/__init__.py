"""parkbot: an unanswered question is work, so put it where you keep work.

Agents return ``needs_input`` results; parkbot turns each one into a durable backlog item
(an issue on GitHub, or an item on a ref of the repository itself), blocks what depends on it,
and records the owner's answer through a re-runnable, multi-step resolution.

The Python API, importable from here::

    from parkbot import Backlog, Refused

    backlog = Backlog.open(repo=".", backend="git")
    filed = backlog.park({"status": "needs_input", ...})

Importing ``parkbot`` loads nothing else, not even :mod:`parkbot.core.lazy` (``parkbot --help`` imports this
package and nothing but the command line): every name below is imported on first use.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

__version__ = "0.2.0.dev0"

#: Public name -> the module that defines it.
_EXPORTS = {
    "Backlog": "parkbot.api",
    "DecisionItem": "parkbot.api",
    "DecisionList": "parkbot.api",
    "DecisionView": "parkbot.api",
    "Filed": "parkbot.api",
    "GateReport": "parkbot.api",
    "Inventory": "parkbot.api",
    "Requested": "parkbot.api",
    "Resolved": "parkbot.api",
    "ResumeContext": "parkbot.api",
    "Synced": "parkbot.api",
    "ParkbotError": "parkbot.core.errors",
    "InvalidInput": "parkbot.core.errors",
    "NotFound": "parkbot.core.errors",
    "Refused": "parkbot.core.errors",
    "BackendFailure": "parkbot.core.errors",
    "ConcurrentChange": "parkbot.core.errors",
    "ExitCode": "parkbot.core.errors",
    "Duration": "parkbot.core.durations",
    "NeedsInput": "parkbot.core.models",
    "DoneWithAssumptions": "parkbot.core.models",
    "Done": "parkbot.core.models",
    "Failed": "parkbot.core.models",
    "parse_result": "parkbot.core.models",
    "result_json_schema": "parkbot.core.models",
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
    from parkbot.api import (
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
    from parkbot.core.durations import Duration
    from parkbot.core.errors import (
        BackendFailure,
        ConcurrentChange,
        ExitCode,
        InvalidInput,
        NotFound,
        ParkbotError,
        Refused,
    )
    from parkbot.core.models import Done, DoneWithAssumptions, Failed, NeedsInput, parse_result, result_json_schema


def __getattr__(name: str) -> Any:
    module = _EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module 'parkbot' has no attribute {name!r}")
    value = getattr(importlib.import_module(module), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted({*globals(), *_EXPORTS})

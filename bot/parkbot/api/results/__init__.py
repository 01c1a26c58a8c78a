"""What every command prints with ``--json``: one model per kind of outcome, each with its text for people.

``model_dump(mode="json")`` of a result is exactly the matching command's ``--json``; ``text()`` is what
it prints otherwise, and ``exit_code`` what it exits with (:mod:`parkbot.core.errors`).

One module per command family, each name importable from here and loaded on first use: ``gate`` defines
:class:`GateReport` only (:mod:`.gate`), ``show`` and ``list`` the decisions (:mod:`.decisions`), ``resume``
the context (:mod:`.resume`); the acts' results are :mod:`.acts`, what they share :mod:`.base`.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from parkbot.core.lazy import exports

if TYPE_CHECKING:
    from parkbot.api.results.acts import Cited, Corrected, Filed, Inventory, Requested, Resolved, Synced
    from parkbot.api.results.base import FILED_SHOWN, LOCATION_SHOWN, location_fields, location_of, where
    from parkbot.api.results.decisions import DecisionItem, DecisionList, DecisionView
    from parkbot.api.results.gate import GateReport
    from parkbot.api.results.resume import ResumeContext

#: The module of each name.
_NAMES_IN = {
    "parkbot.api.results.acts": "Cited Corrected Filed Inventory Requested Resolved Synced",
    "parkbot.api.results.base": "FILED_SHOWN LOCATION_SHOWN location_fields location_of where",
    "parkbot.api.results.decisions": "DecisionItem DecisionList DecisionView",
    "parkbot.api.results.gate": "GateReport",
    "parkbot.api.results.resume": "ResumeContext",
}
_WHERE = {name: module for module, names in _NAMES_IN.items() for name in names.split()}


__all__ = [
    "FILED_SHOWN",
    "LOCATION_SHOWN",
    "Cited",
    "Corrected",
    "DecisionItem",
    "DecisionList",
    "DecisionView",
    "Filed",
    "GateReport",
    "Inventory",
    "Requested",
    "Resolved",
    "ResumeContext",
    "Synced",
    "location_fields",
    "location_of",
    "where",
]


__getattr__, __dir__ = exports(__name__, _WHERE)

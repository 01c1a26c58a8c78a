"""Packages that load each name they export from its module on first use (PEP 562).

A command should pay only for the modules of what it runs: ``parkbot.Backlog`` must not load the
report, ``parkbot.api.results.GateReport`` not the models of every other command. Each package keeps
one table of where its names live and hands it to :func:`exports`.
"""

from __future__ import annotations

import importlib
import sys
from collections.abc import Callable, Mapping
from typing import Any


def exports(package: str, where: Mapping[str, str]) -> tuple[Callable[[str], Any], Callable[[], list[str]]]:
    """The ``__getattr__`` and ``__dir__`` of ``package``: ``where`` maps each exported name to its module."""
    namespace = sys.modules[package].__dict__

    def __getattr__(name: str) -> Any:
        module = where.get(name)
        if module is None:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        value = getattr(importlib.import_module(module), name)
        namespace[name] = value  # the next lookup is a plain one
        return value

    def __dir__() -> list[str]:
        return sorted({*namespace, *where})

    return __getattr__, __dir__

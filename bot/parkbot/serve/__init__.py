"""``parkbot serve``: parkbot as a GitHub App, a webhook server for many repositories on a durable queue.

A translating layer, like :mod:`parkbot.events` and :mod:`parkbot.cli`: it verifies and stores each delivery
(:mod:`.webhooks`, :mod:`.queue`), and its workers (:mod:`.worker`) run the same event router the action runs
(:func:`parkbot.events.handle_event`) against the API, with the App's installation token
(:class:`parkbot.trackers.github.GitHubApp`). It holds no rule of its own.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from parkbot.serve.queue import open_queue
    from parkbot.serve.server import run

#: What ``parkbot serve`` (:mod:`parkbot.cli.serve`, the one command that launches this surface) uses, loaded on
#: first use: ``parkbot serve --status`` reads the queue without loading the web server.
_LAUNCH = {"open_queue": "parkbot.serve.queue", "run": "parkbot.serve.server"}

__all__ = ["open_queue", "run"]


def __getattr__(name: str) -> Any:
    if name in _LAUNCH:
        return getattr(importlib.import_module(_LAUNCH[name]), name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")

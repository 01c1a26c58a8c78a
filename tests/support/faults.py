"""A tracker that fails on purpose, like a network blip between two steps."""

from __future__ import annotations

from typing import Any

from parkbot.core.errors import BackendFailure


class FailOnce:
    """Wraps a tracker so one named method fails once, like a network blip between resolution steps."""

    def __init__(self, tracker: Any, method: str) -> None:
        self._tracker = tracker
        self._method = method
        self.failed = False

    def __getattr__(self, name: str) -> Any:
        attr = getattr(self._tracker, name)
        if name != self._method or self.failed:
            return attr

        def fail(*args: Any, **kwargs: Any) -> Any:
            self.failed = True
            raise BackendFailure(f"injected failure in {name}")

        return fail

"""A small event router, in the style of gidgethub's ``routing.py``.

Handlers register for an event name and, optionally, one or more ``action`` values; a handler
registered without actions receives every action of that event (events such as ``push`` or
``status`` have no action at all). :meth:`Router.dispatch` calls every matching handler in
registration order and returns their results, so one module per event family keeps its own router
and :mod:`parkbot.events` composes them in one place (as bedevere does).

The router performs no I/O and knows nothing about trackers: what a handler needs arrives in the
:class:`~parkbot.events.base.Context` it is called with.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, TypeVar

Handler = Callable[..., Any]
H = TypeVar("H", bound=Handler)

#: Key for "every action" (and for events that carry no action).
ANY = None


class Router:
    """Route ``(event name, action)`` to registered handlers."""

    def __init__(self, *others: Router) -> None:
        # event name -> action (or ANY) -> handlers, in registration order
        self._routes: dict[str, dict[str | None, list[Handler]]] = {}
        for other in others:
            for event, by_action in other._routes.items():
                for action, handlers in by_action.items():
                    for handler in handlers:
                        self.add(handler, event, action)

    def add(self, handler: Handler, event: str, *actions: str | None) -> None:
        """Register ``handler`` for ``event``, limited to ``actions`` when any are given."""
        by_action = self._routes.setdefault(event, {})
        for action in actions or (ANY,):
            by_action.setdefault(action, []).append(handler)

    def register(self, event: str, *actions: str) -> Callable[[H], H]:
        """Decorator form of :meth:`add`."""

        def decorator(handler: H) -> H:
            self.add(handler, event, *actions)
            return handler

        return decorator

    def handlers(self, event: str, action: str | None) -> list[Handler]:
        """Handlers for this event and action: the action-specific ones and the catch-all ones."""
        by_action = self._routes.get(event, {})
        found = list(by_action.get(ANY, []))
        if action is not None:
            found += by_action.get(action, [])
        return found

    def knows(self, event: str) -> bool:
        return event in self._routes

    def routes(self) -> dict[str, list[str | None]]:
        """``event -> [actions]`` (``None`` meaning every action), for help texts and docs."""
        return {event: list(by_action) for event, by_action in sorted(self._routes.items())}

    def dispatch(self, event: str, action: str | None, *args: Any, **kwargs: Any) -> list[Any]:
        """Call every matching handler with ``*args, **kwargs``; their results, in order."""
        return [handler(*args, **kwargs) for handler in self.handlers(event, action)]

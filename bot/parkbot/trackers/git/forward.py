"""How a facade offers a method of one of its parts: :class:`Forward`, typed, so mypy checks the facade
against the protocols it claims exactly as if the method were written on it; and :class:`Later`, a part's
class named without importing its module, so a part a command does not use is never loaded."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Concatenate, Generic, ParamSpec, TypeVar, overload

P = ParamSpec("P")
R = TypeVar("R")
S = TypeVar("S")

_FORWARD_DOC = """``find = Forward("reading", DecisionReads.find)``: ``facade.find`` is ``facade.reading.find``.

    The facade composes its parts and names, in one table, which part answers each method; the code
    lives in the part. The signature (and the docstring) are the part's own.
    """


class _Doc:
    """The docstring of :class:`Forward` on the class, and the forwarded method's on each instance (read when
    asked, so a part named through :class:`Later` is imported only then)."""

    def __get__(self, instance: object, owner: object = None) -> str | None:
        if isinstance(instance, Forward):
            return instance.method_doc()
        return _FORWARD_DOC


class Forward(Generic[S, P, R]):
    __doc__ = _Doc()  # the text is _FORWARD_DOC

    def __init__(self, part: str, method: Callable[Concatenate[S, P], R]) -> None:
        self.part = part
        self.name = method.__name__
        self._method: object = method

    def method_doc(self) -> str | None:
        """The forwarded method's docstring (a method named through :class:`Later` is looked up now)."""
        method = self._method
        return method.doc() if isinstance(method, LaterMethod) else method.__doc__

    @overload
    def __get__(self, instance: None, owner: type[Any]) -> Forward[S, P, R]: ...

    @overload
    def __get__(self, instance: object, owner: type[Any]) -> Callable[P, R]: ...

    def __get__(self, instance: object | None, owner: type[Any]) -> Forward[S, P, R] | Callable[P, R]:
        if instance is None:
            return self
        bound: Callable[P, R] = getattr(getattr(instance, self.part), self.name)
        return bound

    def __repr__(self) -> str:
        return f"<forward to .{self.part}.{self.name}>"


class Later:
    """A part's class, imported on first use::

        DecisionWrites = Later("parkbot.trackers.git.writes", "DecisionWrites")

    For mypy the name is the real class (imported under ``TYPE_CHECKING``); at run time ``DecisionWrites.create``
    names the method for a :class:`Forward` without importing anything, and ``DecisionWrites(...)`` imports the
    module and makes the part.
    """

    def __init__(self, module: str, name: str) -> None:
        self.module = module
        self.name = name

    def load(self) -> Any:
        # The import statement's own machinery (``importlib.import_module`` bypasses it), so that
        # ``python -X importtime`` shows the module when it is loaded.
        return getattr(__import__(self.module, fromlist=[self.name]), self.name)

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        return self.load()(*args, **kwargs)

    def __getattr__(self, method: str) -> LaterMethod:
        if method.startswith("__"):
            raise AttributeError(method)
        return LaterMethod(self, method)

    def __repr__(self) -> str:
        return f"<{self.module}.{self.name}, imported on first use>"


class LaterMethod:
    """A method of a :class:`Later` class, by name."""

    def __init__(self, owner: Later, name: str) -> None:
        self.owner = owner
        self.__name__ = name

    def doc(self) -> str | None:
        doc: str | None = getattr(self.owner.load(), self.__name__).__doc__
        return doc

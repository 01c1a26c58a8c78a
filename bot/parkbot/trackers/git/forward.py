"""How a facade offers a method of one of its parts: :class:`Forward`, typed, so mypy checks the facade
against the protocols it claims exactly as if the method were written on it."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Concatenate, Generic, ParamSpec, TypeVar, overload

P = ParamSpec("P")
R = TypeVar("R")
S = TypeVar("S")


class Forward(Generic[S, P, R]):
    """``find = Forward("reading", DecisionReads.find)``: ``facade.find`` is ``facade.reading.find``.

    The facade composes its parts and names, in one table, which part answers each method; the code
    lives in the part. The signature (and the docstring) are the part's own.
    """

    def __init__(self, part: str, method: Callable[Concatenate[S, P], R]) -> None:
        self.part = part
        self.name = method.__name__
        self.__doc__ = method.__doc__

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

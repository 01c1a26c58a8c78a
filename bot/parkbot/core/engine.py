"""pydantic-core's compiled engine, loaded without the typing descriptions its Python package defines first.

``import pydantic_core`` runs the package's ``__init__``, which defines the few hundred ``TypedDict``
classes that describe a core schema to type checkers (``pydantic_core.core_schema``) and loads
``typing_extensions``: for a command that only validates and writes with prebuilt schemas, that cost
more than everything else pydantic-core does for it. The engine is the compiled module
``pydantic_core._pydantic_core``, and needs none of it.

So the package is entered into ``sys.modules`` as the import system makes it, but its ``__init__`` is
not run until something asks the package for a name it does not have yet (pydantic does, as soon as it
is imported): then the ``__init__`` runs in place, once, and the package is what a plain import makes.
Where the package cannot be found this way, or was imported already, nothing is done differently.

The engine itself asks its package for one name, ``MISSING``, the first time it writes a value. The
package makes it with ``typing_extensions.sentinel``, and loading ``typing_extensions`` for it cost
every command that prints a result more than the rest of its start-up in this module; so it is made
here as a :class:`_Sentinel`, which behaves as that sentinel does wherever pydantic or a user relies on
it (its repr, ``X | MISSING``, pickling and copying by name, identity and hashing), and stays the
package's ``MISSING`` when the ``__init__`` runs later.
"""

from __future__ import annotations

import sys
from typing import Any, Union

from parkbot.core.packages import enter


class _Sentinel:
    """``typing_extensions.sentinel`` as pydantic-core's ``MISSING`` is one, without importing it (see the module)."""

    def __init__(self, name: str, module: str) -> None:
        self._name = name
        self._repr = name
        self.__module__ = module  # pickled by name, as the package's own name (``__reduce__``)

    @property
    def __name__(self) -> str:
        return self._name

    def __repr__(self) -> str:
        return self._repr

    def __or__(self, other: Any) -> Any:
        return Union[self, other]  # noqa: UP007 - ``|`` would call this again

    def __ror__(self, other: Any) -> Any:
        return Union[other, self]  # noqa: UP007 - ``|`` would call this again

    def __reduce__(self) -> str:
        return self._name


def _missing() -> Any:
    """The one name the engine itself asks its package for (to leave unset fields out of what it writes)."""
    return _Sentinel("MISSING", "pydantic_core")


if "pydantic_core" not in sys.modules:
    enter("pydantic_core", {"MISSING": _missing})

from pydantic_core._pydantic_core import (  # noqa: E402 - once the package is entered
    PydanticUndefined,
    SchemaSerializer,
    SchemaValidator,
    ValidationError,
    to_json,
)
from pydantic_core._pydantic_core import __version__ as VERSION  # noqa: E402

__all__ = ["VERSION", "PydanticUndefined", "SchemaSerializer", "SchemaValidator", "ValidationError", "to_json"]

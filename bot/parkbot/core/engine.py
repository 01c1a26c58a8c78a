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
"""

from __future__ import annotations

import sys
from typing import Any

from parkbot.core.packages import enter


def _missing() -> Any:
    """The one name the engine itself asks its package for (to leave unset fields out of what it writes)."""
    from typing_extensions import Sentinel

    return Sentinel("MISSING")


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

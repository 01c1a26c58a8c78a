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

_PACKAGE = "pydantic_core"


def _enter_package() -> None:
    """``pydantic_core`` in ``sys.modules``, its ``__init__`` run on the first name asked of it."""
    import importlib.util

    spec = importlib.util.find_spec(_PACKAGE)
    if spec is None or spec.loader is None or not spec.submodule_search_locations:
        return
    package = importlib.util.module_from_spec(spec)
    loader = spec.loader
    # The one name the engine itself asks the package for (to leave unset fields out of what it writes).
    from typing_extensions import Sentinel

    missing = package.__dict__["MISSING"] = Sentinel("MISSING")

    def complete(name: str) -> Any:
        """The first name the package lacks: run its ``__init__`` now, in place, and look again."""
        del package.__dict__["__getattr__"]
        loader.exec_module(package)
        package.__dict__["MISSING"] = missing  # the one the engine holds already
        return package.__dict__[name] if name in package.__dict__ else getattr(package, name)

    package.__dict__["__getattr__"] = complete
    sys.modules[_PACKAGE] = package


if _PACKAGE not in sys.modules:
    _enter_package()

from pydantic_core._pydantic_core import (  # noqa: E402 - once the package is entered
    PydanticUndefined,
    SchemaSerializer,
    SchemaValidator,
    ValidationError,
    to_json,
)
from pydantic_core._pydantic_core import __version__ as VERSION  # noqa: E402

__all__ = ["VERSION", "PydanticUndefined", "SchemaSerializer", "SchemaValidator", "ValidationError", "to_json"]

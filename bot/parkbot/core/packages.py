"""A package entered into ``sys.modules`` without running its ``__init__``, until something asks it for a name.

Some packages parkbot uses do far more in their ``__init__`` than a command needs: pydantic-core's
describes every core schema to type checkers, PyYAML's loads its dumping side and its C extension.
:func:`enter` puts such a package into ``sys.modules`` as the import system makes it, so that its
submodules import as usual, and runs the ``__init__`` in place, once, the first time anything asks
the package for a name it does not have yet: from then on it is what a plain import makes. A package
already imported, or one the import system cannot find this way, is left as it is.
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Mapping
from typing import Any


def enter(name: str, given: Mapping[str, Callable[[], Any]] | None = None) -> bool:
    """Enter package ``name`` (see the module). ``given`` makes names the package answers without running:
    each made when first asked, and kept when it does run (so what was handed out stays the package's).

    Whether it was entered now.
    """
    if name in sys.modules:
        return False
    import importlib.util

    spec = importlib.util.find_spec(name)
    if spec is None or spec.loader is None or not spec.submodule_search_locations:
        return False
    package = importlib.util.module_from_spec(spec)
    loader = spec.loader
    makers = dict(given or {})
    kept: dict[str, Any] = {}

    def complete(missing: str) -> Any:
        """A name the package lacks: one of ``given``, or else run its ``__init__`` now, in place, and look again."""
        if missing in makers:
            kept[missing] = package.__dict__[missing] = makers.pop(missing)()
            return kept[missing]
        del package.__dict__["__getattr__"]
        loader.exec_module(package)
        package.__dict__.update(kept)  # the objects handed out already stay the package's
        return package.__dict__[missing] if missing in package.__dict__ else getattr(package, missing)

    package.__dict__["__getattr__"] = complete
    sys.modules[name] = package
    return True

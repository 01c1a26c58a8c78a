"""The model layer parkbot's records, configuration and results are defined with: pydantic's, or a light one.

The models are written as pydantic models, and pydantic generates their schemas. A command does not
need pydantic for that: the schemas are generated ahead of time (:mod:`parkbot.core.prebuilt`), and
when pydantic-core, the engine that validates and writes with them, is the one they were generated
and tested with, the models are defined on :class:`parkbot.core.light_models.Model` instead, which
pydantic-core validates and writes from those schemas. Same class bodies, same schemas, same engine:
the same values, errors and bytes (tests/core/test_prebuilt.py compares both on real and damaged
data), without importing pydantic.

Under any other pydantic-core, the models are pydantic's own and pydantic generates their schemas,
as it always did. The choice is made once, when the first model module is imported (the schema
generator stands in an empty :mod:`parkbot.core.prebuilt_version` first, to have pydantic's own).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from parkbot.core.engine import VERSION, ValidationError
from parkbot.core.prebuilt_version import PYDANTIC_CORE_VERSION

#: Whether the models are defined on the light model layer (the prebuilt schemas are usable).
LIGHT = VERSION == PYDANTIC_CORE_VERSION

if TYPE_CHECKING or not LIGHT:
    from pydantic import (
        AfterValidator,
        BeforeValidator,
        ConfigDict,
        Field,
        GetJsonSchemaHandler,
        PrivateAttr,
        StringConstraints,
        ValidatorFunctionWrapHandler,
        field_serializer,
        field_validator,
        model_validator,
    )
    from pydantic import BaseModel as Model
else:
    from parkbot.core.light_models import (
        AfterValidator,
        BeforeValidator,
        ConfigDict,
        Field,
        GetJsonSchemaHandler,
        Model,
        PrivateAttr,
        StringConstraints,
        ValidatorFunctionWrapHandler,
        field_serializer,
        field_validator,
        model_validator,
    )

__all__ = [
    "LIGHT",
    "AfterValidator",
    "BeforeValidator",
    "ConfigDict",
    "Field",
    "GetJsonSchemaHandler",
    "Model",
    "PrivateAttr",
    "StringConstraints",
    "ValidationError",
    "ValidatorFunctionWrapHandler",
    "field_serializer",
    "field_validator",
    "model_validator",
]

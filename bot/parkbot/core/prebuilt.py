"""Validators built from core schemas generated ahead of time, so a command never generates one.

Every record parkbot reads is validated by pydantic-core against the schema pydantic generates from
the models. Generating that schema (and looking up pydantic's plugins, which imports
``importlib.metadata``) cost a command more than its own work, so the schemas are generated once,
when the models change, into modules next to them (``*_schemas.py``, written by
``python -m tests.support.prebuilt --write``; a test fails when they fall behind the models). Here
they become the models' validators and serializers, built on first use: the same schema, the same
pydantic-core engine, so the same verdicts, errors and bytes.

The models stay the one source of truth. Under a pydantic other than the one the schemas were
generated with, nothing is installed and pydantic generates the schemas itself, as it always did.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from typing import Any, Generic, Protocol, TypeVar

from parkbot.core.engine import SchemaSerializer, SchemaValidator

T = TypeVar("T")
T_co = TypeVar("T_co", covariant=True)
Schema = Callable[[], dict[str, Any]]
#: One model: the class, its schema (a function, so it is only built when used) and its core config.
Prebuilt = tuple[type, Schema, Mapping[str, Any]]


def usable(generated_with: str) -> bool:
    """Whether schemas generated under pydantic ``generated_with`` are used: only on the light model layer
    (:mod:`parkbot.core.modeling`), and only when generated with the rest."""
    from parkbot.core.modeling import LIGHT
    from parkbot.core.prebuilt_version import PYDANTIC_VERSION

    return LIGHT and generated_with == PYDANTIC_VERSION


class _Lazy:
    """A model's validator or serializer until one of its module's models is first used.

    Then every model of that module gets its real validator and serializer at once: pydantic-core
    looks a value's own serializer up when the value is an instance of a subclass of the declared
    model (``DecisionView`` where a ``DecisionItem`` is declared), and that must be a real one.
    """

    __slots__ = ("_build", "_cls", "_name")

    def __init__(self, cls: type, name: str, build: Callable[[], None]) -> None:
        self._cls, self._name, self._build = cls, name, build

    def __getattr__(self, item: str) -> Any:
        self._build()
        return getattr(getattr(self._cls, self._name), item)


def install(models: Iterable[Prebuilt]) -> None:
    """Give each model its validator and serializer from its prebuilt schema (pydantic's own attributes)."""
    by_module: dict[str, list[Prebuilt]] = {}
    for model in models:
        by_module.setdefault(model[0].__module__, []).append(model)
    for group in by_module.values():
        done: list[bool] = []

        def build(group: list[Prebuilt] = group, done: list[bool] = done) -> None:
            if done:
                return
            done.append(True)
            for cls, schema, config in group:
                core_schema, core_config = schema(), dict(config)
                # pydantic's own attributes, named as strings: ``cls`` is any model class.
                setattr(cls, "__pydantic_validator__", SchemaValidator(core_schema, core_config))  # type: ignore[arg-type]  # noqa: B010
                setattr(cls, "__pydantic_serializer__", SchemaSerializer(core_schema, core_config))  # type: ignore[arg-type]  # noqa: B010

        for cls, schema, _ in group:
            setattr(cls, "__parkbot_schema__", schema)  # noqa: B010 - any model class
            for name in ("__pydantic_validator__", "__pydantic_serializer__"):
                setattr(cls, name, _Lazy(cls, name, build))


class Adapter(Generic[T]):
    """What parkbot uses of a ``TypeAdapter`` (validating JSON and Python data), from a prebuilt schema."""

    def __init__(self, schema: Schema, config: Mapping[str, Any]) -> None:
        self.validator = SchemaValidator(schema(), dict(config))  # type: ignore[arg-type]

    def validate_json(self, data: str | bytes) -> T:
        return self.validator.validate_json(data)  # type: ignore[no-any-return]

    def validate_python(self, data: object) -> T:
        return self.validator.validate_python(data)  # type: ignore[no-any-return]


class Validates(Protocol[T_co]):
    """The part of a ``TypeAdapter`` parkbot reads records with."""

    def validate_json(self, data: str | bytes, /) -> T_co: ...

    def validate_python(self, data: object, /) -> T_co: ...


class Generated(Protocol):
    """A generated ``*_schemas`` module."""

    PYDANTIC_VERSION: str
    MODELS: tuple[Prebuilt, ...]
    ADAPTERS: dict[str, tuple[Schema, dict[str, Any]]]


def install_from(generated: Generated) -> None:
    """Install a generated module's schemas, when they are the ones this pydantic would generate."""
    if usable(generated.PYDANTIC_VERSION):
        install(generated.MODELS)


def json_schema(name: str) -> dict[str, Any]:
    """The JSON Schema pydantic generates of the model or adapter ``name`` (``module.Class``), prebuilt."""
    import json

    from parkbot.core.prebuilt_json_schemas import JSON_SCHEMAS

    found: dict[str, Any] = json.loads(JSON_SCHEMAS[name])
    return found


def adapter(generated: Generated, name: str, kind: Callable[[], Any]) -> Validates[Any]:
    """The validator of the type ``kind()`` returns, from its prebuilt schema (else pydantic builds it)."""
    if usable(generated.PYDANTIC_VERSION):
        return Adapter(*generated.ADAPTERS[name])
    from pydantic import TypeAdapter

    return TypeAdapter(kind())

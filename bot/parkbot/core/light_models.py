"""A model layer without pydantic's: the base class parkbot's models are defined with when their schemas are prebuilt.

pydantic's ``BaseModel`` does two things for parkbot: its metaclass turns a class body into a core
schema, and its methods hand instances to pydantic-core to validate and write. The first is done
ahead of time (:mod:`parkbot.core.prebuilt`), so a command only needs the second, and importing
pydantic (with the typing helpers it loads) and building each class through its metaclass cost a
command more than its own work. :class:`Model` is that second part: instances are made, validated,
written and copied by pydantic-core, from the very schemas pydantic generates of the same class
bodies, and behave as pydantic's do (frozen, private attributes, equality, copies).

The names a class body uses besides the base (``Field``, ``PrivateAttr``, ``ConfigDict``,
``field_validator``, ...) only record what they are given: the prebuilt schema already holds what
pydantic made of them. :mod:`parkbot.core.modeling` picks this layer or pydantic's.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping
from typing import Any, ClassVar

from parkbot.core.engine import PydanticUndefined, ValidationError

__all__ = [
    "AfterValidator",
    "BeforeValidator",
    "ConfigDict",
    "Field",
    "FieldInfo",
    "GetJsonSchemaHandler",
    "Model",
    "PrivateAttr",
    "StringConstraints",
    "ValidatorFunctionWrapHandler",
    "field_serializer",
    "field_validator",
    "model_validator",
]

_MISSING: Any = PydanticUndefined
ConfigDict = dict


class FieldInfo:
    """What a class body says of one field beyond its type: its default, alias and description."""

    __slots__ = ("alias", "annotation", "default", "default_factory", "description", "extra")

    def __init__(
        self,
        default: Any = _MISSING,
        *,
        default_factory: Callable[[], Any] | None = None,
        alias: str | None = None,
        description: str | None = None,
        **extra: Any,
    ) -> None:
        self.default = _MISSING if default is Ellipsis else default
        self.default_factory = default_factory
        self.alias = alias
        self.description = description
        self.extra = extra
        self.annotation: Any = None

    def is_required(self) -> bool:
        return self.default is _MISSING and self.default_factory is None

    def get_default(self, *, call_default_factory: bool = False, validated_data: Any = None) -> Any:
        if self.default_factory is None:
            return self.default
        return self.default_factory() if call_default_factory else None


def Field(default: Any = _MISSING, **options: Any) -> Any:
    return FieldInfo(default, **options)


class _PrivateAttr:
    __slots__ = ("default", "default_factory")

    def __init__(self, default: Any = _MISSING, *, default_factory: Callable[[], Any] | None = None) -> None:
        self.default, self.default_factory = default, default_factory

    def get_default(self) -> Any:
        return self.default_factory() if self.default_factory is not None else self.default


def PrivateAttr(default: Any = _MISSING, *, default_factory: Callable[[], Any] | None = None) -> Any:
    return _PrivateAttr(default, default_factory=default_factory)


class _Metadata:
    """``Annotated`` metadata a class body states; the prebuilt schema holds what pydantic made of it."""

    __slots__ = ("args", "options")

    def __init__(self, *args: Any, **options: Any) -> None:
        self.args, self.options = args, options


class AfterValidator(_Metadata):
    __slots__ = ()


class BeforeValidator(_Metadata):
    __slots__ = ()


class StringConstraints(_Metadata):
    __slots__ = ()


class GetJsonSchemaHandler:
    """Named in signatures only (JSON Schema comes prebuilt too)."""


class ValidatorFunctionWrapHandler:
    """Named in signatures only."""


def _as_classmethod(function: Any) -> Any:
    """As pydantic does: a validator whose first parameter is ``cls`` is a class method."""
    if isinstance(function, classmethod | staticmethod):
        return function
    code = getattr(function, "__code__", None)
    if code is not None and code.co_argcount and code.co_varnames[0] == "cls":
        return classmethod(function)
    return function


def field_validator(*fields: str, mode: str = "after", **options: Any) -> Callable[[Any], Any]:
    return _as_classmethod


def model_validator(*, mode: str) -> Callable[[Any], Any]:
    return _as_classmethod if mode != "after" else _unchanged


def field_serializer(*fields: str, **options: Any) -> Callable[[Any], Any]:
    return _unchanged


def _unchanged(function: Any) -> Any:
    return function


def _is_class_var(annotation: Any) -> bool:
    if isinstance(annotation, str):
        return annotation.startswith(("ClassVar", "typing.ClassVar"))
    return annotation is ClassVar or getattr(annotation, "__origin__", None) is ClassVar


class _NotPrebuilt:
    """The validator of a model class no prebuilt schema names: using it says what to do."""

    __slots__ = ("_cls",)

    def __init__(self, cls: type) -> None:
        self._cls = cls

    def __getattr__(self, item: str) -> Any:
        raise TypeError(
            f"{self._cls.__module__}.{self._cls.__qualname__} has no prebuilt schema: models are defined in the "
            "modules tests/support/prebuilt.py generates schemas for (python -m tests.support.prebuilt --write)"
        )


class _ModelFields:
    """``Model.model_fields``: each field's information, its type evaluated (only on first use)."""

    def __get__(self, instance: object, owner: type[Model]) -> dict[str, FieldInfo]:
        found = owner.__dict__.get("__parkbot_model_fields__")
        if found is None:
            import copy
            import typing

            hints = typing.get_type_hints(owner)
            found = {}
            for name, info in owner.__parkbot_fields__.items():
                evaluated = copy.copy(info)
                evaluated.annotation = hints.get(name)
                found[name] = evaluated
            type.__setattr__(owner, "__parkbot_model_fields__", found)
        return found


def _private_copy(model: Model, deep: bool, memo: dict[int, Any] | None = None) -> dict[str, Any] | None:
    private = getattr(model, "__pydantic_private__", None)
    if private is None:
        return None
    kept = {k: v for k, v in private.items() if v is not _MISSING}
    if not deep:
        return kept
    import copy

    return copy.deepcopy(kept, memo)


def _shown(model: Model) -> list[tuple[str, Any]]:
    """The fields ``repr`` shows, as pydantic's does."""
    fields = type(model).__parkbot_fields__
    return [(k, v) for k, v in model.__dict__.items() if k in fields and fields[k].extra.get("repr", True)]


def _frozen_hash(self: Model) -> int:
    return hash(tuple(self.__dict__.get(name) for name in type(self).__parkbot_fields__))


class Model:
    """A model validated, written and copied by pydantic-core from its prebuilt schema (see the module's docstring)."""

    __slots__ = ("__dict__", "__pydantic_extra__", "__pydantic_fields_set__", "__pydantic_private__")
    __pydantic_extra__: dict[str, Any] | None
    __pydantic_fields_set__: set[str]
    __pydantic_private__: dict[str, Any] | None

    model_config: ClassVar[dict[str, Any]] = {}
    model_fields: ClassVar[dict[str, FieldInfo]] = _ModelFields()  # type: ignore[assignment]
    __parkbot_fields__: ClassVar[dict[str, FieldInfo]] = {}
    __private_attributes__: ClassVar[dict[str, _PrivateAttr]] = {}
    __pydantic_validator__: ClassVar[Any]
    __pydantic_serializer__: ClassVar[Any]
    #: The function returning the class's prebuilt core schema (set by :func:`parkbot.core.prebuilt.install`).
    __parkbot_schema__: ClassVar[Callable[[], dict[str, Any]] | None] = None

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        namespace = cls.__dict__
        annotations: Mapping[str, Any] = namespace.get("__annotations__", {})
        fields = dict(cls.__parkbot_fields__)
        private = dict(cls.__private_attributes__)
        for name, annotation in annotations.items():
            if _is_class_var(annotation) or name == "model_config":
                continue
            value = namespace.get(name, _MISSING)
            if name.startswith("_"):
                private[name] = value if isinstance(value, _PrivateAttr) else _PrivateAttr(value)
            else:
                fields[name] = value if isinstance(value, FieldInfo) else FieldInfo(value)
            if value is not _MISSING:
                type.__delattr__(cls, name)
        for name, value in list(namespace.items()):
            if isinstance(value, _PrivateAttr) and name not in private:
                private[name] = value
                type.__delattr__(cls, name)
        cls.__parkbot_fields__ = fields
        cls.__private_attributes__ = private
        cls.__parkbot_schema__ = None
        cls.__pydantic_validator__ = cls.__pydantic_serializer__ = _NotPrebuilt(cls)
        if cls.model_config.get("frozen") and "__hash__" not in namespace:
            cls.__hash__ = _frozen_hash  # type: ignore[assignment]

    def __init__(self, /, **data: Any) -> None:
        __tracebackhide__ = True  # as pydantic's: a failed validation is the caller's
        type(self).__pydantic_validator__.validate_python(data, self_instance=self)

    @classmethod
    def model_validate(cls, obj: Any, **options: Any) -> Any:
        return cls.__pydantic_validator__.validate_python(obj, **options)

    @classmethod
    def model_validate_json(cls, data: str | bytes, **options: Any) -> Any:
        return cls.__pydantic_validator__.validate_json(data, **options)

    @classmethod
    def model_construct(cls, _fields_set: set[str] | None = None, **values: Any) -> Any:
        """An instance from trusted, already validated values, defaults filled in (as pydantic's)."""
        made = cls.__new__(cls)
        fields: dict[str, Any] = {}
        given: set[str] = set()
        for name, info in cls.__parkbot_fields__.items():
            if info.alias is not None and info.alias in values:
                fields[name] = values.pop(info.alias)
                given.add(name)
            elif name in values:
                fields[name] = values.pop(name)
                given.add(name)
            elif not info.is_required():
                fields[name] = info.get_default(call_default_factory=True)
        object.__setattr__(made, "__dict__", fields)
        object.__setattr__(made, "__pydantic_fields_set__", given if _fields_set is None else _fields_set)
        object.__setattr__(made, "__pydantic_extra__", None)
        object.__setattr__(made, "__pydantic_private__", None)
        if cls.__private_attributes__:
            made.model_post_init(None)
            private = made.__pydantic_private__ or {}
            private.update((name, value) for name, value in values.items() if name in cls.__private_attributes__)
        return made

    @classmethod
    def model_rebuild(cls, **options: Any) -> None:
        """Builds the class's validator and serializer now (they are built on first use otherwise)."""
        getattr(cls.__pydantic_serializer__, "to_python", None)

    @classmethod
    def model_json_schema(cls, **options: Any) -> dict[str, Any]:
        """The model's JSON Schema, as pydantic generates it with its defaults (prebuilt)."""
        if options:
            raise TypeError("only the JSON Schema pydantic generates by default is prebuilt")
        from parkbot.core.prebuilt import json_schema

        return json_schema(f"{cls.__module__}.{cls.__qualname__}")

    @classmethod
    def __get_pydantic_core_schema__(cls, source: Any, handler: Any) -> Any:
        """So that a pydantic model may hold one: its prebuilt schema."""
        if cls.__parkbot_schema__ is None:
            return cls.__pydantic_validator__.schema  # raises: no prebuilt schema
        return cls.__parkbot_schema__()

    def model_post_init(self, context: Any, /) -> None:
        """Called by pydantic-core after validating (for classes with private attributes): their defaults."""
        if getattr(self, "__pydantic_private__", None) is None:
            private = {}
            for name, attribute in type(self).__private_attributes__.items():
                default = attribute.get_default()
                if default is not _MISSING:
                    private[name] = default
            object.__setattr__(self, "__pydantic_private__", private)

    def model_dump(self, **options: Any) -> Any:
        return type(self).__pydantic_serializer__.to_python(self, **options)

    def model_dump_json(self, **options: Any) -> str:
        return type(self).__pydantic_serializer__.to_json(self, **options).decode()  # type: ignore[no-any-return]

    def model_copy(self, *, update: Mapping[str, Any] | None = None, deep: bool = False) -> Any:
        copied = self.__deepcopy__() if deep else self.__copy__()
        if update:
            copied.__dict__.update(update)
            copied.__pydantic_fields_set__.update(update.keys())
        return copied

    @property
    def model_fields_set(self) -> set[str]:
        return self.__pydantic_fields_set__

    @property
    def model_extra(self) -> dict[str, Any] | None:
        return self.__pydantic_extra__

    def __copy__(self) -> Any:
        cls = type(self)
        made = cls.__new__(cls)
        # What ``copy.copy`` does with each (a dict, a dict or None, a set), without loading ``copy`` at start-up.
        extra = self.__pydantic_extra__
        object.__setattr__(made, "__dict__", self.__dict__.copy())
        object.__setattr__(made, "__pydantic_extra__", None if extra is None else extra.copy())
        object.__setattr__(made, "__pydantic_fields_set__", self.__pydantic_fields_set__.copy())
        object.__setattr__(made, "__pydantic_private__", _private_copy(self, False))
        return made

    def __deepcopy__(self, memo: dict[int, Any] | None = None) -> Any:
        import copy as _copy

        memo = {} if memo is None else memo
        cls = type(self)
        made = cls.__new__(cls)
        memo[id(self)] = made
        object.__setattr__(made, "__dict__", _copy.deepcopy(self.__dict__, memo))
        object.__setattr__(made, "__pydantic_extra__", _copy.deepcopy(self.__pydantic_extra__, memo))
        object.__setattr__(made, "__pydantic_fields_set__", _copy.copy(self.__pydantic_fields_set__))
        object.__setattr__(made, "__pydantic_private__", _private_copy(self, True, memo))
        return made

    def __getstate__(self) -> dict[str, Any]:
        return {
            "__dict__": self.__dict__,
            "__pydantic_extra__": self.__pydantic_extra__,
            "__pydantic_fields_set__": self.__pydantic_fields_set__,
            "__pydantic_private__": _private_copy(self, False),
        }

    def __setstate__(self, state: dict[str, Any]) -> None:
        object.__setattr__(self, "__pydantic_fields_set__", state.get("__pydantic_fields_set__", set()))
        object.__setattr__(self, "__pydantic_extra__", state.get("__pydantic_extra__"))
        object.__setattr__(self, "__pydantic_private__", state.get("__pydantic_private__"))
        object.__setattr__(self, "__dict__", state.get("__dict__", {}))

    def __getattr__(self, item: str) -> Any:
        if item in type(self).__private_attributes__:
            try:
                return object.__getattribute__(self, "__pydantic_private__")[item]
            except (AttributeError, KeyError, TypeError):
                pass
        raise AttributeError(f"{type(self).__name__!r} object has no attribute {item!r}")

    def __setattr__(self, name: str, value: Any) -> None:
        cls = type(self)
        if name in cls.__private_attributes__:
            private = getattr(self, "__pydantic_private__", None)
            if private is None:
                private = {}
                object.__setattr__(self, "__pydantic_private__", private)
            private[name] = value
            return
        if cls.model_config.get("frozen"):
            raise ValidationError.from_exception_data(
                cls.__name__, [{"type": "frozen_instance", "loc": (name,), "input": value}]
            )
        if name not in cls.__parkbot_fields__:
            raise ValueError(f'"{cls.__name__}" object has no field "{name}"')
        self.__dict__[name] = value
        self.__pydantic_fields_set__.add(name)

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Model):
            return NotImplemented
        if not (
            type(self) is type(other)
            and getattr(self, "__pydantic_private__", None) == getattr(other, "__pydantic_private__", None)
            and (self.__pydantic_extra__ or {}) == (other.__pydantic_extra__ or {})
        ):
            return False
        if self.__dict__ == other.__dict__:
            return True
        names = type(self).__parkbot_fields__
        return [self.__dict__.get(n, _MISSING) for n in names] == [other.__dict__.get(n, _MISSING) for n in names]

    __hash__: Any = None

    def __iter__(self) -> Iterator[tuple[str, Any]]:
        """So ``dict(model)`` works."""
        yield from [(k, v) for k, v in self.__dict__.items() if not k.startswith("_")]
        if self.__pydantic_extra__:
            yield from self.__pydantic_extra__.items()

    def __repr__(self) -> str:
        return f"{type(self).__name__}({', '.join(f'{k}={v!r}' for k, v in _shown(self))})"

    def __str__(self) -> str:
        return " ".join(f"{k}={v!r}" for k, v in _shown(self))

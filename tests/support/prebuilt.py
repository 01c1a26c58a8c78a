"""Writes the prebuilt core schemas (``*_schemas.py``) from the models: ``python -m tests.support.prebuilt --write``.

Each generated module holds, for each model of one source module, the core schema pydantic generates
for it (``metadata`` left out: it only feeds JSON Schema, which pydantic still generates itself), as a
function returning a Python literal, with every class, function and validator written as a reference
to where it is defined. ``--check`` (and tests/core/test_prebuilt.py) fails when a module is behind
the models.
"""

from __future__ import annotations

import dataclasses
import importlib
import inspect
import json
import re
import subprocess
import sys
import types
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from pydantic import BaseModel

ROOT = Path(__file__).resolve().parents[2]


@dataclass(frozen=True)
class Target:
    """One generated module: the models of ``sources`` and named ``adapters`` (type expressions)."""

    path: str
    sources: tuple[str, ...]
    adapters: Mapping[str, Callable[[], Any]] = field(default_factory=dict)


#: The generated modules, by path (the models import them; see :func:`_without_generated`).
PATHS = (
    "bot/parkbot/core/models/prebuilt_schemas.py",
    "bot/parkbot/core/models/prebuilt_results_schemas.py",
    "bot/parkbot/core/prebuilt_config_schemas.py",
    "bot/parkbot/core/prebuilt_figures_schemas.py",
    "bot/parkbot/core/prebuilt_dashboard_index_schemas.py",
    *(
        f"bot/parkbot/api/results/prebuilt_{part}_schemas.py"
        for part in ("base", "gate", "acts", "decisions", "resume")
    ),
)


#: The generated module that says which pydantic the schemas were generated with (see parkbot.core.modeling).
VERSION_PATH = "bot/parkbot/core/prebuilt_version.py"
#: The generated module of the models' JSON Schemas (``Model.model_json_schema()`` on the light model layer).
JSON_SCHEMAS_PATH = "bot/parkbot/core/prebuilt_json_schemas.py"


def _without_generated() -> None:
    """Define the models with pydantic's own model layer, and stand empty modules in for the generated ones,
    so the models load even while those are stale or missing.

    Only when parkbot is not loaded yet (a fresh process, as ``--write`` and ``--check`` run); the
    models then have pydantic's own schemas, which is what is written out.
    """
    if "parkbot.core.models" in sys.modules:
        from parkbot.core.modeling import LIGHT

        if LIGHT:
            raise RuntimeError("the models are loaded on the light model layer: generate in a fresh process")
        return
    version = types.ModuleType(_module_of(VERSION_PATH))
    version.PYDANTIC_VERSION = version.PYDANTIC_CORE_VERSION = ""  # type: ignore[attr-defined]
    sys.modules[version.__name__] = version
    for path in PATHS:
        stub = types.ModuleType(_module_of(path))
        stub.PYDANTIC_VERSION = ""  # type: ignore[attr-defined]
        stub.MODELS = ()  # type: ignore[attr-defined]
        stub.ADAPTERS = {}  # type: ignore[attr-defined]
        sys.modules[stub.__name__] = stub


def _targets() -> list[Target]:
    _without_generated()
    from parkbot.core.models import Answer, LogEntry
    from parkbot.core.models.results import AgentResult

    return [
        Target(
            PATHS[0],
            ("parkbot.core.models.fields", "parkbot.core.models.records"),
            {
                "log_lines": lambda: list[LogEntry],
                "answers": lambda: list[Answer],
                "bucket": lambda: dict[str, list[str]],
            },
        ),
        # Agent results apart: a command that reads no result (gate, show, list) never loads them.
        Target(PATHS[1], ("parkbot.core.models.results",), {"agent_result": lambda: AgentResult}),
        Target(PATHS[2], ("parkbot.core.config",)),
        Target(PATHS[3], ("parkbot.core.figures",)),
        Target(PATHS[4], ("parkbot.core.dashboard_index",)),
        # One per module of results, so that a command loads the schemas of its own results only.
        *(Target(path, (_module_of(path).replace(".prebuilt_", ".").removesuffix("_schemas"),)) for path in PATHS[5:]),
    ]


def _module_of(path: str) -> str:
    return path.removeprefix("bot/").removesuffix(".py").replace("/", ".")


_REF_ID = re.compile(r":\d+$")


def _models(module: str) -> list[type[BaseModel]]:
    from pydantic import BaseModel

    mod = importlib.import_module(module)
    return [
        o
        for o in vars(mod).values()
        if inspect.isclass(o) and issubclass(o, BaseModel) and o.__module__ == module and o is not BaseModel
    ]


def _clean(schema: Any) -> Any:
    """The schema without ``metadata`` and with refs that do not carry an object id."""
    if isinstance(schema, dict):
        out = {}
        for key, value in schema.items():
            if key == "metadata":
                continue
            if key in ("ref", "schema_ref") and isinstance(value, str):
                value = _REF_ID.sub("", value)
            out[key] = _clean(value)
        return out
    if isinstance(schema, list):
        return [_clean(v) for v in schema]
    return schema


class _Writer:
    """Python source for a schema: literals as written, objects as references to where they live."""

    def __init__(self, named: Mapping[int, tuple[dict[str, Any], str, str | None]]) -> None:
        self.modules: dict[str, str] = {}
        #: Schemas written as a call: the schema, its function, and the generated module it is in (None: this one).
        self.named = named

    def alias(self, module: str) -> str:
        return self.modules.setdefault(module, f"_m{len(self.modules)}")

    def reference(self, obj: Any) -> str:
        if inspect.isclass(obj) and obj.__module__ == "builtins":
            return obj.__qualname__
        if inspect.ismethod(obj) and inspect.isclass(obj.__self__):
            owner = obj.__self__
            text = f"{self.alias(owner.__module__)}.{owner.__qualname__}.{obj.__func__.__name__}"
        elif dataclasses.is_dataclass(obj) and not inspect.isclass(obj):
            kind = type(obj)
            fields = ", ".join(f"{f.name}={self.value(getattr(obj, f.name))}" for f in dataclasses.fields(obj))
            return f"{self.alias(kind.__module__)}.{kind.__qualname__}({fields})"
        else:
            qualname = getattr(obj, "__qualname__", None)
            if qualname is None or "<" in qualname:
                raise TypeError(f"{obj!r} cannot be referred to by name: give it a module-level name")
            text = f"{self.alias(obj.__module__)}.{qualname}"
        found: Any = importlib.import_module(obj.__module__ if not inspect.ismethod(obj) else obj.__self__.__module__)
        for part in text.split(".")[1:]:
            found = getattr(found, part)
        if found is not obj and found != obj:
            raise TypeError(f"{text} is not {obj!r}")
        return text

    def value(self, obj: Any, top: bool = False) -> str:
        if not top and isinstance(obj, dict) and id(obj) not in self.named:
            for schema, name, module in self.named.values():
                if obj == schema:
                    return f"{self.alias(module)}.{name}()" if module else f"{name}()"
        if isinstance(obj, dict):
            return "{" + ", ".join(f"{self.value(k)}: {self.value(v)}" for k, v in obj.items()) + "}"
        if isinstance(obj, list):
            return "[" + ", ".join(self.value(v) for v in obj) + "]"
        if isinstance(obj, tuple) and hasattr(type(obj), "_fields"):  # a NamedTuple: made again by name
            kind = type(obj)
            fields = ", ".join(f"{name}={self.value(getattr(obj, name))}" for name in kind._fields)  # type: ignore[attr-defined]
            return f"{self.alias(kind.__module__)}.{kind.__qualname__}({fields})"
        if isinstance(obj, tuple):
            return "(" + "".join(f"{self.value(v)}, " for v in obj) + ")"
        if isinstance(obj, float) and (obj != obj or obj in (float("inf"), float("-inf"))):
            return f"float({str(obj)!r})"
        if obj is None or isinstance(obj, str | int | float | bool | bytes):
            return repr(obj)
        return self.reference(obj)


def _core_config(cls: type[BaseModel]) -> dict[str, Any]:
    from pydantic._internal._config import ConfigWrapper

    return dict(ConfigWrapper(cls.model_config, check=False).core_config(title=cls.__name__))


def _model_schemas(target: Target) -> list[tuple[str, dict[str, Any], dict[str, Any], type[BaseModel]]]:
    found = []
    for model in (m for source in target.sources for m in _models(source)):
        model.model_rebuild(force=True)
        name = f"_{model.__module__.rsplit('.', 1)[-1]}_{model.__qualname__}"
        found.append((name, _clean(model.__pydantic_core_schema__), _core_config(model), model))
    return found


def generate(target: Target, before: Iterable[Target] = ()) -> str:
    """The source of one generated module; models of the ``before`` modules are called, not repeated."""
    from pydantic import TypeAdapter
    from pydantic.version import VERSION

    schemas: list[tuple[str, dict[str, Any], dict[str, Any], type[BaseModel] | None]] = []
    schemas.extend(_model_schemas(target))
    for name, kind in target.adapters.items():
        adapter: TypeAdapter[Any] = TypeAdapter(kind())
        schemas.append((f"_adapter_{name}", _clean(adapter.core_schema), {}, None))
    named: dict[int, tuple[dict[str, Any], str, str | None]] = {
        id(schema): (schema, name, None) for name, schema, _, model in schemas if model is not None
    }
    for earlier in before:
        for name, schema, _, _ in _model_schemas(earlier):
            named[id(schema)] = (schema, name, _module_of(earlier.path))
    writer = _Writer(named)
    bodies = [
        f"def {name}() -> dict[str, Any]:\n    return {writer.value(schema, top=True)}\n"
        for name, schema, _, _ in schemas
    ]
    model_rows = [
        f"    ({writer.reference(model)}, {name}, {writer.value(config)}),\n"
        for name, _, config, model in schemas
        if model is not None
    ]
    adapter_rows = [
        f"    {key!r}: ({name}, {writer.value(config)}),\n"
        for (name, _, config, model), key in zip([s for s in schemas if s[3] is None], target.adapters, strict=True)
    ]
    imports = "".join(f"import {module} as {alias}\n" for module, alias in sorted(writer.modules.items()))
    return (
        '"""Generated from the models by ``python -m tests.support.prebuilt --write``: do not edit.\n\n'
        "The core schema of each model of "
        + ", ".join(f"``{s}``" for s in target.sources)
        + " (see :mod:`parkbot.core.prebuilt`).\n"
        '"""\n\n'
        "from __future__ import annotations\n\n"
        "from typing import Any\n\n"
        "from parkbot.core.prebuilt import Prebuilt, Schema\n"
        f"{imports}\n"
        f"PYDANTIC_VERSION = {VERSION!r}\n\n\n"
        + "\n\n".join(bodies)
        + "\n\nMODELS: tuple[Prebuilt, ...] = (\n"
        + "".join(model_rows)
        + ")\n\nADAPTERS: dict[str, tuple[Schema, dict[str, Any]]] = {\n"
        + "".join(adapter_rows)
        + "}\n"
    )


_HEADER = '"""Generated from the models by ``python -m tests.support.prebuilt --write``: do not edit.\n\n'


def generate_version() -> str:
    """The module naming the pydantic (and pydantic-core) the schemas were generated with."""
    import pydantic_core
    from pydantic.version import VERSION

    return (
        _HEADER + "The pydantic the prebuilt schemas were generated with (see :mod:`parkbot.core.modeling`).\n"
        '"""\n\n'
        f"PYDANTIC_VERSION = {VERSION!r}\n"
        f"PYDANTIC_CORE_VERSION = {pydantic_core.__version__!r}\n"
    )


def generate_json_schemas(targets: Iterable[Target]) -> str:
    """The module of every model's and adapter's JSON Schema as pydantic generates it by default, as JSON text."""
    from pydantic import TypeAdapter

    rows = []
    for target in targets:
        for source in target.sources:
            for model in _models(source):
                text = json.dumps(model.model_json_schema(), sort_keys=False, separators=(",", ":"))
                rows.append(f"    {model.__module__ + '.' + model.__qualname__!r}: {text!r},\n")
        for name, kind in target.adapters.items():
            text = json.dumps(TypeAdapter(kind()).json_schema(), sort_keys=False, separators=(",", ":"))
            rows.append(f"    {name!r}: {text!r},\n")
    return (
        _HEADER + "The JSON Schema pydantic generates of each model (see :func:`parkbot.core.prebuilt.json_schema`).\n"
        '"""\n\n'
        "JSON_SCHEMAS: dict[str, str] = {\n" + "".join(rows) + "}\n"
    )


def _outputs(targets: list[Target]) -> dict[str, str]:
    """Every generated module's path and text."""
    found = {t.path: generate(t, targets[:i]) for i, t in enumerate(targets)}
    found[VERSION_PATH] = generate_version()
    found[JSON_SCHEMAS_PATH] = generate_json_schemas(targets)
    return found


def stale(targets: Iterable[Target] | None = None) -> list[str]:
    """The generated modules that differ from what the models generate now."""
    outputs = _outputs(list(targets or _targets()))
    return [path for path, text in outputs.items() if (ROOT / path).read_text(encoding="utf-8") != text]


def _verdict(read: Callable[[str], Any], text: str) -> str:
    """What reading ``text`` gives: the value as JSON, or the error exactly as a user would meet it."""
    from parkbot.core.errors import InvalidInput
    from parkbot.core.modeling import ValidationError

    try:
        value = read(text)
    except ValidationError as exc:
        return f"invalid: {exc}\n{exc.json(include_url=False)}"
    except (InvalidInput, ValueError) as exc:
        return f"refused: {type(exc).__name__}: {exc}"
    return f"ok: {value}"


def _readers() -> dict[str, Callable[[str], Any]]:
    from parkbot.api.results import DecisionView, ResumeContext
    from parkbot.core.config import parse_config
    from parkbot.core.dashboard_index import DashboardIndex
    from parkbot.core.models import Decision, parse_result
    from parkbot.trackers.git import view

    def decision(text: str) -> str:
        found = Decision.model_validate_json(text)
        return "\n".join(
            (
                found.model_dump_json(),
                DecisionView.of(found).model_dump_json(),
                ResumeContext.of(found).model_dump_json(),
            )
        )

    def dump_all(values: Any) -> str:
        return "\n".join(v.model_dump_json() if hasattr(v, "model_dump_json") else json.dumps(v) for v in values)

    return {
        "decision": decision,
        "log_lines": lambda text: dump_all(view._log_lines().validate_json(text)),
        "answers": lambda text: dump_all(view._answers().validate_json(text)),
        "bucket": lambda text: json.dumps(view._bucket().validate_json(text)),
        "result": lambda text: parse_result(text).model_dump_json(),
        "config": lambda text: parse_config(text).model_dump_json(),
        "dashboard_index": lambda text: json.dumps(DashboardIndex.from_data(json.loads(text)).to_data()),
    }


def verdicts(kind: str, texts: list[str], *, prebuilt: bool) -> list[str]:
    """Each text read as ``kind`` in a fresh process, with the prebuilt schemas or with pydantic's own."""
    done = subprocess.run(
        [sys.executable, "-m", "tests.support.prebuilt", "--verdicts", kind, *([] if prebuilt else ["--pydantic"])],
        input=json.dumps(texts),
        capture_output=True,
        text=True,
        cwd=ROOT,
        check=True,
    )
    found: list[str] = json.loads(done.stdout)
    return found


def _print_verdicts(kind: str, own: bool) -> int:
    if own:
        _without_generated()
    from parkbot.core.modeling import LIGHT
    from parkbot.core.models import Decision

    if own == LIGHT or own == (type(Decision.__dict__["__pydantic_validator__"]).__name__ == "_Lazy"):
        print("the validators are not the ones asked for", file=sys.stderr)
        return 1
    read = _readers()[kind]
    print(json.dumps([_verdict(read, text) for text in json.loads(sys.stdin.read())]))
    return 0


def main(argv: list[str]) -> int:
    if argv[:1] == ["--verdicts"] and len(argv) in (2, 3):
        return _print_verdicts(argv[1], argv[2:] == ["--pydantic"])
    if argv not in (["--write"], ["--check"]):
        print("usage: python -m tests.support.prebuilt --write | --check", file=sys.stderr)
        return 2
    if argv == ["--check"]:
        behind = stale()
        for path in behind:
            print(f"{path} is behind the models: run python -m tests.support.prebuilt --write", file=sys.stderr)
        return 1 if behind else 0
    for path, text in _outputs(_targets()).items():
        (ROOT / path).write_text(text, encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

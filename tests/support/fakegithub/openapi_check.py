"""Route matching and body validation against the trimmed GitHub OpenAPI description.

Why: a hand-written fake drifts from the real API.  Checking every request body the bot
sends and every response the fake returns against GitHub's own description keeps both
honest.  The same table of path templates is used to dispatch requests, so the fake can
only serve operations that exist in the description.

OpenAPI 3.0 schemas are converted to JSON Schema 2020-12 (``nullable`` -> ``"null"`` type)
once; validators are compiled lazily and cached per operation.
"""

from __future__ import annotations

import json
import re
import urllib.parse
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any

from jsonschema import Draft202012Validator
from referencing import Registry, Resource
from referencing.jsonschema import DRAFT202012

SPEC_PATH = Path(__file__).resolve().parents[2] / "openapi" / "github-trimmed.json"
_ROOT_URI = "urn:github-openapi"
_HTTP_METHODS = ("get", "put", "post", "delete", "patch")

# Bodies GitHub documents in prose but the schema omits. Only this one: the description of "set labels"
# says an empty array removes every label, while its schema asks for at least one. The bare arrays and
# strings PyGithub's Issue.add_to_labels / set_labels send are *not* accepted: GitHub's description
# has the object form ({"labels": [...]}), which is what parkbot sends.
_EXTRA_REQUEST_SCHEMAS: dict[str, list[dict[str, Any]]] = {
    "issues/set-labels": [
        {"type": "object", "properties": {"labels": {"type": "array", "maxItems": 0}}, "required": ["labels"]},
    ],
}


class OpenAPIViolation(AssertionError):
    """A request or response body does not match GitHub's OpenAPI description."""


@dataclass(frozen=True)
class Operation:
    """One (method, path template) of the description."""

    operation_id: str
    method: str
    template: str
    regex: re.Pattern[str]
    param_names: tuple[str, ...]

    def match(self, path: str) -> dict[str, str] | None:
        """Path parameters (URL-decoded) if ``path`` (still percent-encoded) matches."""
        m = self.regex.fullmatch(path)
        if m is None:
            return None
        return {k: urllib.parse.unquote(v) for k, v in zip(self.param_names, m.groups(), strict=True)}


def _convert(node: Any) -> Any:
    """OpenAPI 3.0 schema -> JSON Schema 2020-12 (nullable, $ref base)."""
    if isinstance(node, list):
        return [_convert(v) for v in node]
    if not isinstance(node, dict):
        return node
    out: dict[str, Any] = {}
    for k, v in node.items():
        if k == "$ref" and isinstance(v, str) and v.startswith("#/"):
            out[k] = _ROOT_URI + v
        elif k in ("properties", "patternProperties", "$defs", "definitions"):
            out[k] = {name: _convert(sub) for name, sub in v.items()}
        elif k in ("discriminator", "xml", "externalDocs", "example", "examples", "readOnly", "writeOnly"):
            continue
        else:
            out[k] = _convert(v)
    if out.pop("nullable", False):
        typ = out.get("type")
        if isinstance(typ, str):
            out["type"] = [typ, "null"]
            if "enum" in out and None not in out["enum"]:
                out["enum"] = [*out["enum"], None]
        elif isinstance(typ, list):
            if "null" not in typ:
                out["type"] = [*typ, "null"]
        else:
            out = {"anyOf": [out, {"type": "null"}]}
    return out


class OpenAPISpec:
    """The trimmed description: operations, path matching and cached validators."""

    def __init__(self, path: Path = SPEC_PATH) -> None:
        raw = json.loads(path.read_text(encoding="utf-8"))
        self.raw = raw
        converted = {"components": _convert(raw.get("components", {}))}
        self._registry: Registry = Registry().with_resource(
            _ROOT_URI, Resource.from_contents(converted, default_specification=DRAFT202012)
        )
        self._components = raw.get("components", {})
        self.operations: dict[str, Operation] = {}
        self._op_raw: dict[str, dict[str, Any]] = {}
        ordered: list[tuple[tuple[int, ...], Operation]] = []
        for template, item in raw["paths"].items():
            for method in _HTTP_METHODS:
                op = item.get(method)
                if op is None:
                    continue
                operation = _compile(op["operationId"], method.upper(), template)
                self.operations[operation.operation_id] = operation
                self._op_raw[operation.operation_id] = op
                # literal segments sort before parameters, left to right
                key = tuple(1 if seg.startswith("{") else 0 for seg in template.split("/"))
                ordered.append((key, operation))
        ordered.sort(key=lambda kv: kv[0])
        self._ordered = [op for _, op in ordered]
        self._validators: dict[tuple[str, str], Draft202012Validator | None] = {}

    def find(self, method: str, path: str) -> tuple[Operation, dict[str, str]] | None:
        """The operation serving ``method path`` and its parameters, or None."""
        for op in self._ordered:
            if op.method != method:
                continue
            params = op.match(path)
            if params is not None:
                return op, params
        return None

    def path_exists(self, path: str) -> bool:
        """True when some method serves ``path`` (for 404 vs. method-not-allowed)."""
        return any(op.match(path) is not None for op in self._ordered)

    def raw_op(self, operation_id: str) -> dict[str, Any]:
        """The operation object as written in the description."""
        return self._op_raw[operation_id]

    # -- validation ---------------------------------------------------------------------

    def _deref(self, node: dict[str, Any]) -> dict[str, Any]:
        while "$ref" in node:
            _, _, section, name = node["$ref"].split("/")
            node = self._components[section][name]
        return node

    def _validator(self, operation_id: str, which: str) -> Draft202012Validator | None:
        key = (operation_id, which)
        if key in self._validators:
            return self._validators[key]
        op = self._op_raw[operation_id]
        schema: dict[str, Any] | None = None
        if which == "request":
            body = op.get("requestBody")
            if body is not None:
                schema = self._deref(body).get("content", {}).get("application/json", {}).get("schema")
                extras = _EXTRA_REQUEST_SCHEMAS.get(operation_id)
                if schema is not None and extras:
                    schema = {"anyOf": [schema, *extras]}
        else:
            resp = op.get("responses", {}).get(which)
            if resp is not None:
                schema = self._deref(resp).get("content", {}).get("application/json", {}).get("schema")
        validator = None
        if schema is not None:
            validator = Draft202012Validator(_convert(schema), registry=self._registry)
        self._validators[key] = validator
        return validator

    def request_errors(self, operation_id: str, body: Any) -> list[str]:
        """Messages for ``body`` not matching the operation's JSON requestBody."""
        validator = self._validator(operation_id, "request")
        if validator is None:
            return []
        if body is None:
            required = self._deref(self._op_raw[operation_id]["requestBody"]).get("required", False)
            return ["a JSON request body is required"] if required else []
        return _messages(validator, body)

    def response_errors(self, operation_id: str, status: int, body: Any) -> list[str]:
        """Messages for a JSON ``body`` not matching the response schema of ``status``."""
        if str(status) not in self._op_raw[operation_id].get("responses", {}):
            return [f"status {status} is not a documented response"]
        validator = self._validator(operation_id, str(status))
        if validator is None:
            return []
        return _messages(validator, body)


def _messages(validator: Draft202012Validator, instance: Any) -> list[str]:
    errors = sorted(validator.iter_errors(instance), key=lambda e: list(e.absolute_path))
    out = []
    for err in errors[:10]:
        where = "/".join(str(p) for p in err.absolute_path) or "<root>"
        detail = err.message if len(err.message) < 300 else err.message[:300] + "..."
        if err.context:  # anyOf/oneOf: the closest branch says more
            best = max(err.context, key=lambda e: len(e.absolute_path))
            detail += f" (e.g. {'/'.join(str(p) for p in best.absolute_path) or '<root>'}: {best.message[:200]})"
        out.append(f"{where}: {detail}")
    return out


def _compile(operation_id: str, method: str, template: str) -> Operation:
    names: list[str] = []
    parts: list[str] = []
    for piece in re.split(r"(\{[^}]+\})", template):
        if piece.startswith("{") and piece.endswith("}"):
            name = piece[1:-1]
            names.append(name)
            # repository file paths span segments; everything else is one segment
            parts.append("(.+)" if name == "path" else "([^/]+)")
        else:
            parts.append(re.escape(piece))
    return Operation(operation_id, method, template, re.compile("".join(parts)), tuple(names))


@cache
def load_spec(path: Path = SPEC_PATH) -> OpenAPISpec:
    """Parse the description once per process (validators are cached on the instance)."""
    return OpenAPISpec(path)

"""Generated from the models by ``python -m tests.support.prebuilt --write``: do not edit.

The core schema of each model of ``parkbot.api.results.base`` (see :mod:`parkbot.core.prebuilt`).
"""

from __future__ import annotations

from typing import Any

from parkbot.core.prebuilt import Prebuilt, Schema
import parkbot.api.results.base as _m0

PYDANTIC_VERSION = '2.14.4'


def _base__Result() -> dict[str, Any]:
    return {'type': 'model', 'cls': _m0._Result, 'schema': {'type': 'model-fields', 'fields': {}, 'model_name': '_Result', 'computed_fields': []}, 'custom_init': False, 'root_model': False, 'post_init': 'model_post_init', 'config': {'extra_fields_behavior': 'forbid', 'title': '_Result'}, 'ref': 'parkbot.api.results.base._Result'}


def _base__Located() -> dict[str, Any]:
    return {'type': 'model', 'cls': _m0._Located, 'schema': {'type': 'model-fields', 'fields': {'backend': {'type': 'model-field', 'schema': {'type': 'str'}}, 'ref': {'type': 'model-field', 'schema': {'type': 'default', 'schema': {'type': 'nullable', 'schema': {'type': 'str'}}, 'default': None}}, 'path': {'type': 'model-field', 'schema': {'type': 'default', 'schema': {'type': 'nullable', 'schema': {'type': 'str'}}, 'default': None}}, 'number': {'type': 'model-field', 'schema': {'type': 'default', 'schema': {'type': 'nullable', 'schema': {'type': 'int'}}, 'default': None}}, 'url': {'type': 'model-field', 'schema': {'type': 'default', 'schema': {'type': 'nullable', 'schema': {'type': 'str'}}, 'default': None}}}, 'model_name': '_Located', 'computed_fields': []}, 'custom_init': False, 'root_model': False, 'post_init': 'model_post_init', 'config': {'extra_fields_behavior': 'forbid', 'title': '_Located'}, 'ref': 'parkbot.api.results.base._Located'}


MODELS: tuple[Prebuilt, ...] = (
    (_m0._Result, _base__Result, {'extra_fields_behavior': 'forbid', 'title': '_Result'}),
    (_m0._Located, _base__Located, {'extra_fields_behavior': 'forbid', 'title': '_Located'}),
)

ADAPTERS: dict[str, tuple[Schema, dict[str, Any]]] = {
}

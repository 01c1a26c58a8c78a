"""Generated from the models by ``python -m tests.support.prebuilt --write``: do not edit.

The core schema of each model of ``parkbot.api.results.base`` (see :mod:`parkbot.core.prebuilt`).
"""

from __future__ import annotations

from typing import Any

from parkbot.core.prebuilt import Prebuilt, Schema
import parkbot.api.results.base as _m0

PYDANTIC_VERSION = '2.14.4'


def _base_ResultBase() -> dict[str, Any]:
    return {'type': 'model', 'cls': _m0.ResultBase, 'schema': {'type': 'model-fields', 'fields': {}, 'model_name': 'ResultBase', 'computed_fields': []}, 'custom_init': False, 'root_model': False, 'post_init': 'model_post_init', 'config': {'extra_fields_behavior': 'forbid', 'title': 'ResultBase'}, 'ref': 'parkbot.api.results.base.ResultBase'}


def _base_LocatedResult() -> dict[str, Any]:
    return {'type': 'model', 'cls': _m0.LocatedResult, 'schema': {'type': 'model-fields', 'fields': {'backend': {'type': 'model-field', 'schema': {'type': 'str'}}, 'ref': {'type': 'model-field', 'schema': {'type': 'default', 'schema': {'type': 'nullable', 'schema': {'type': 'str'}}, 'default': None}}, 'path': {'type': 'model-field', 'schema': {'type': 'default', 'schema': {'type': 'nullable', 'schema': {'type': 'str'}}, 'default': None}}, 'number': {'type': 'model-field', 'schema': {'type': 'default', 'schema': {'type': 'nullable', 'schema': {'type': 'int'}}, 'default': None}}, 'url': {'type': 'model-field', 'schema': {'type': 'default', 'schema': {'type': 'nullable', 'schema': {'type': 'str'}}, 'default': None}}}, 'model_name': 'LocatedResult', 'computed_fields': []}, 'custom_init': False, 'root_model': False, 'post_init': 'model_post_init', 'config': {'extra_fields_behavior': 'forbid', 'title': 'LocatedResult'}, 'ref': 'parkbot.api.results.base.LocatedResult'}


MODELS: tuple[Prebuilt, ...] = (
    (_m0.ResultBase, _base_ResultBase, {'extra_fields_behavior': 'forbid', 'title': 'ResultBase'}),
    (_m0.LocatedResult, _base_LocatedResult, {'extra_fields_behavior': 'forbid', 'title': 'LocatedResult'}),
)

ADAPTERS: dict[str, tuple[Schema, dict[str, Any]]] = {
}

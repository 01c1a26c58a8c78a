"""Generated from the models by ``python -m tests.support.prebuilt --write``: do not edit.

The core schema of each model of ``parkbot.api.results.gate`` (see :mod:`parkbot.core.prebuilt`).
"""

from __future__ import annotations

from typing import Any

from parkbot.core.prebuilt import Prebuilt, Schema
import parkbot.api.results.gate as _m0

PYDANTIC_VERSION = '2.14.4'


def _gate_GateReport() -> dict[str, Any]:
    return {'type': 'model', 'cls': _m0.GateReport, 'schema': {'type': 'model-fields', 'fields': {'target': {'type': 'model-field', 'schema': {'type': 'str'}}, 'state': {'type': 'model-field', 'schema': {'type': 'literal', 'expected': ['open', 'blocked']}}, 'blocking': {'type': 'model-field', 'schema': {'type': 'list', 'items_schema': {'type': 'str'}}}, 'resolved': {'type': 'model-field', 'schema': {'type': 'list', 'items_schema': {'type': 'str'}}}, 'note': {'type': 'model-field', 'schema': {'type': 'default', 'schema': {'type': 'nullable', 'schema': {'type': 'str'}}, 'default': None}}}, 'model_name': 'GateReport', 'computed_fields': []}, 'custom_init': False, 'root_model': False, 'post_init': 'model_post_init', 'config': {'extra_fields_behavior': 'forbid', 'title': 'GateReport'}, 'ref': 'parkbot.api.results.gate.GateReport'}


MODELS: tuple[Prebuilt, ...] = (
    (_m0.GateReport, _gate_GateReport, {'extra_fields_behavior': 'forbid', 'title': 'GateReport'}),
)

ADAPTERS: dict[str, tuple[Schema, dict[str, Any]]] = {
}

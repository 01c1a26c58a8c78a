"""Generated from the models by ``python -m tests.support.prebuilt --write``: do not edit.

The core schema of each model of ``parkbot.api.results.resume`` (see :mod:`parkbot.core.prebuilt`).
"""

from __future__ import annotations

from typing import Any

from parkbot.core.prebuilt import Prebuilt, Schema
import parkbot.api.results.resume as _m0
import parkbot.core.models.prebuilt_schemas as _m1

PYDANTIC_VERSION = '2.14.4'


def _resume_ResumeContext() -> dict[str, Any]:
    return {'type': 'model', 'cls': _m0.ResumeContext, 'schema': {'type': 'model-fields', 'fields': {'id': {'type': 'model-field', 'schema': {'type': 'str'}}, 'state': {'type': 'model-field', 'schema': {'type': 'literal', 'expected': ['open', 'resolved', 'abandoned']}}, 'question': {'type': 'model-field', 'schema': {'type': 'str'}}, 'options': {'type': 'model-field', 'schema': {'type': 'list', 'items_schema': _m1._fields_Option()}}, 'answer': {'type': 'model-field', 'schema': {'type': 'nullable', 'schema': {'type': 'str'}}}, 'answered_by': {'type': 'model-field', 'schema': {'type': 'nullable', 'schema': {'type': 'str'}}}, 'answered_at': {'type': 'model-field', 'schema': {'type': 'nullable', 'schema': {'type': 'datetime', 'microseconds_precision': 'truncate'}}}, 'assumption': {'type': 'model-field', 'schema': {'type': 'bool'}}, 'precedent': {'type': 'model-field', 'schema': {'type': 'nullable', 'schema': _m1._records_Citation()}}, 'guess': {'type': 'model-field', 'schema': {'type': 'nullable', 'schema': {'type': 'str'}}}, 'overrides': {'type': 'model-field', 'schema': {'type': 'list', 'items_schema': _m1._records_Override()}}, 'work_so_far': {'type': 'model-field', 'schema': {'type': 'any'}}}, 'model_name': 'ResumeContext', 'computed_fields': []}, 'custom_init': False, 'root_model': False, 'post_init': 'model_post_init', 'config': {'extra_fields_behavior': 'forbid', 'title': 'ResumeContext'}, 'ref': 'parkbot.api.results.resume.ResumeContext'}


MODELS: tuple[Prebuilt, ...] = (
    (_m0.ResumeContext, _resume_ResumeContext, {'extra_fields_behavior': 'forbid', 'title': 'ResumeContext'}),
)

ADAPTERS: dict[str, tuple[Schema, dict[str, Any]]] = {
}

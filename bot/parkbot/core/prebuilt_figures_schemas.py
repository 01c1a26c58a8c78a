"""Generated from the models by ``python -m tests.support.prebuilt --write``: do not edit.

The core schema of each model of ``parkbot.core.figures`` (see :mod:`parkbot.core.prebuilt`).
"""

from __future__ import annotations

from typing import Any

from parkbot.core.prebuilt import Prebuilt, Schema
import parkbot.core.figures as _m0

PYDANTIC_VERSION = '2.14.4'


def _figures_Share() -> dict[str, Any]:
    return {'type': 'model', 'cls': _m0.Share, 'schema': {'type': 'model-fields', 'fields': {'count': {'type': 'model-field', 'schema': {'type': 'int'}}, 'n': {'type': 'model-field', 'schema': {'type': 'int'}}, 'share': {'type': 'model-field', 'schema': {'type': 'nullable', 'schema': {'type': 'float'}}}}, 'model_name': 'Share', 'computed_fields': []}, 'custom_init': False, 'root_model': False, 'config': {'title': 'Share'}, 'ref': 'parkbot.core.figures.Share'}


def _figures_TimeToAnswer() -> dict[str, Any]:
    return {'type': 'model', 'cls': _m0.TimeToAnswer, 'schema': {'type': 'model-fields', 'fields': {'n': {'type': 'model-field', 'schema': {'type': 'int'}}, 'median_seconds': {'type': 'model-field', 'schema': {'type': 'default', 'schema': {'type': 'nullable', 'schema': {'type': 'float'}}, 'default': None}}, 'p90_seconds': {'type': 'model-field', 'schema': {'type': 'default', 'schema': {'type': 'nullable', 'schema': {'type': 'float'}}, 'default': None}}}, 'model_name': 'TimeToAnswer', 'computed_fields': []}, 'custom_init': False, 'root_model': False, 'config': {'title': 'TimeToAnswer'}, 'ref': 'parkbot.core.figures.TimeToAnswer'}


def _figures_DashboardFigures() -> dict[str, Any]:
    return {'type': 'definitions', 'schema': {'type': 'model', 'cls': _m0.DashboardFigures, 'schema': {'type': 'model-fields', 'fields': {'computed_at': {'type': 'model-field', 'schema': {'type': 'datetime', 'microseconds_precision': 'truncate'}}, 'since': {'type': 'model-field', 'schema': {'type': 'datetime', 'microseconds_precision': 'truncate'}}, 'asked': {'type': 'model-field', 'schema': {'type': 'int'}}, 'resolved': {'type': 'model-field', 'schema': {'type': 'int'}}, 'abandoned': {'type': 'model-field', 'schema': {'type': 'int'}}, 'time_to_answer': {'type': 'model-field', 'schema': _figures_TimeToAnswer()}, 'guess_vs_answer': {'type': 'model-field', 'schema': {'type': 'definition-ref', 'schema_ref': 'parkbot.core.figures.Share'}}, 'answered_by_precedent': {'type': 'model-field', 'schema': {'type': 'definition-ref', 'schema_ref': 'parkbot.core.figures.Share'}}, 'answered_by_default': {'type': 'model-field', 'schema': {'type': 'definition-ref', 'schema_ref': 'parkbot.core.figures.Share'}}, 'escalated': {'type': 'model-field', 'schema': {'type': 'definition-ref', 'schema_ref': 'parkbot.core.figures.Share'}}, 'refused_by_cap': {'type': 'model-field', 'schema': {'type': 'definition-ref', 'schema_ref': 'parkbot.core.figures.Share'}}, 'recurring': {'type': 'model-field', 'schema': {'type': 'default', 'schema': {'type': 'nullable', 'schema': {'type': 'tuple', 'items_schema': [{'type': 'int'}, {'type': 'str'}]}}, 'default': None}}}, 'model_name': 'DashboardFigures', 'computed_fields': []}, 'custom_init': False, 'root_model': False, 'config': {'title': 'DashboardFigures'}, 'ref': 'parkbot.core.figures.DashboardFigures'}, 'definitions': [_figures_Share()]}


MODELS: tuple[Prebuilt, ...] = (
    (_m0.Share, _figures_Share, {'title': 'Share'}),
    (_m0.TimeToAnswer, _figures_TimeToAnswer, {'title': 'TimeToAnswer'}),
    (_m0.DashboardFigures, _figures_DashboardFigures, {'title': 'DashboardFigures'}),
)

ADAPTERS: dict[str, tuple[Schema, dict[str, Any]]] = {
}

"""Generated from the models by ``python -m tests.support.prebuilt --write``: do not edit.

The core schema of each model of ``parkbot.core.dashboard_index`` (see :mod:`parkbot.core.prebuilt`).
"""

from __future__ import annotations

from typing import Any

from parkbot.core.prebuilt import Prebuilt, Schema
import parkbot.core.dashboard_index as _m0
import parkbot.core.figures as _m1
import parkbot.core.prebuilt_figures_schemas as _m2

PYDANTIC_VERSION = '2.14.4'


def _dashboard_index__Frozen() -> dict[str, Any]:
    return {'type': 'model', 'cls': _m0._Frozen, 'schema': {'type': 'model-fields', 'fields': {}, 'model_name': '_Frozen', 'computed_fields': []}, 'custom_init': False, 'root_model': False, 'config': {'extra_fields_behavior': 'ignore', 'title': '_Frozen'}, 'ref': 'parkbot.core.dashboard_index._Frozen'}


def _dashboard_index_DashboardEntry() -> dict[str, Any]:
    return {'type': 'model', 'cls': _m0.DashboardEntry, 'schema': {'type': 'model-fields', 'fields': {'id': {'type': 'model-field', 'schema': {'type': 'str'}}, 'title': {'type': 'model-field', 'schema': {'type': 'str'}}, 'owner': {'type': 'model-field', 'schema': {'type': 'str'}}, 'created_at': {'type': 'model-field', 'schema': {'type': 'datetime', 'microseconds_precision': 'truncate'}}, 'blocking': {'type': 'model-field', 'schema': {'type': 'default', 'schema': {'type': 'bool'}, 'default': True}}, 'dependents': {'type': 'model-field', 'schema': {'type': 'default', 'schema': {'type': 'tuple', 'items_schema': [{'type': 'str'}], 'variadic_item_index': 0}, 'default': ()}}, 'chain': {'type': 'model-field', 'schema': {'type': 'default', 'schema': {'type': 'tuple', 'items_schema': [{'type': 'str'}], 'variadic_item_index': 0}, 'default': ()}}, 'review': {'type': 'model-field', 'schema': {'type': 'default', 'schema': {'type': 'bool'}, 'default': False}}, 'planner': {'type': 'model-field', 'schema': {'type': 'default', 'schema': {'type': 'nullable', 'schema': {'type': 'literal', 'expected': ['waiting', 'review']}}, 'default': None}}, 'review_due': {'type': 'model-field', 'schema': {'type': 'default', 'schema': {'type': 'nullable', 'schema': {'type': 'datetime', 'microseconds_precision': 'truncate'}}, 'default': None}}}, 'model_name': 'DashboardEntry', 'computed_fields': []}, 'custom_init': False, 'root_model': False, 'config': {'extra_fields_behavior': 'ignore', 'title': 'DashboardEntry'}, 'ref': 'parkbot.core.dashboard_index.DashboardEntry'}


def _dashboard_index_DashboardIndex() -> dict[str, Any]:
    return {'type': 'definitions', 'schema': {'type': 'model', 'cls': _m0.DashboardIndex, 'schema': {'type': 'model-fields', 'fields': {'entries': {'type': 'model-field', 'schema': {'type': 'default', 'schema': {'type': 'tuple', 'items_schema': [_dashboard_index_DashboardEntry()], 'variadic_item_index': 0}, 'default': ()}}, 'totals': {'type': 'model-field', 'schema': {'type': 'default', 'schema': {'type': 'dict', 'keys_schema': {'type': 'str'}, 'values_schema': {'type': 'int'}}, 'default_factory': dict, 'default_factory_takes_data': False}}, 'blocking_work': {'type': 'model-field', 'schema': {'type': 'default', 'schema': {'type': 'int'}, 'default': 0}}, 'complete': {'type': 'model-field', 'schema': {'type': 'default', 'schema': {'type': 'bool'}, 'default': True}}, 'recounted_at': {'type': 'model-field', 'schema': {'type': 'default', 'schema': {'type': 'nullable', 'schema': {'type': 'datetime', 'microseconds_precision': 'truncate'}}, 'default': None}}, 'figures': {'type': 'model-field', 'schema': {'type': 'default', 'schema': {'type': 'function-wrap', 'function': {'type': 'no-info', 'function': _m0.DashboardIndex._readable_figures}, 'schema': {'type': 'nullable', 'schema': {'type': 'model', 'cls': _m1.DashboardFigures, 'schema': {'type': 'model-fields', 'fields': {'computed_at': {'type': 'model-field', 'schema': {'type': 'datetime', 'microseconds_precision': 'truncate'}}, 'since': {'type': 'model-field', 'schema': {'type': 'datetime', 'microseconds_precision': 'truncate'}}, 'asked': {'type': 'model-field', 'schema': {'type': 'int'}}, 'resolved': {'type': 'model-field', 'schema': {'type': 'int'}}, 'abandoned': {'type': 'model-field', 'schema': {'type': 'int'}}, 'time_to_answer': {'type': 'model-field', 'schema': _m2._figures_TimeToAnswer()}, 'guess_vs_answer': {'type': 'model-field', 'schema': {'type': 'definition-ref', 'schema_ref': 'parkbot.core.figures.Share'}}, 'answered_by_precedent': {'type': 'model-field', 'schema': {'type': 'definition-ref', 'schema_ref': 'parkbot.core.figures.Share'}}, 'answered_by_default': {'type': 'model-field', 'schema': {'type': 'definition-ref', 'schema_ref': 'parkbot.core.figures.Share'}}, 'escalated': {'type': 'model-field', 'schema': {'type': 'definition-ref', 'schema_ref': 'parkbot.core.figures.Share'}}, 'refused_by_cap': {'type': 'model-field', 'schema': {'type': 'definition-ref', 'schema_ref': 'parkbot.core.figures.Share'}}, 'recurring': {'type': 'model-field', 'schema': {'type': 'default', 'schema': {'type': 'nullable', 'schema': {'type': 'tuple', 'items_schema': [{'type': 'int'}, {'type': 'str'}]}}, 'default': None}}}, 'model_name': 'DashboardFigures', 'computed_fields': []}, 'custom_init': False, 'root_model': False, 'config': {'title': 'DashboardFigures'}, 'ref': 'parkbot.core.figures.DashboardFigures'}}}, 'default': None, 'serialization': {'type': 'function-plain', 'function': _m0.DashboardIndex._every_figure, 'is_field_serializer': True, 'info_arg': False, 'return_schema': {'type': 'nullable', 'schema': {'type': 'dict', 'keys_schema': {'type': 'str'}, 'values_schema': {'type': 'any'}}}}}}}, 'model_name': 'DashboardIndex', 'computed_fields': []}, 'custom_init': False, 'root_model': False, 'config': {'extra_fields_behavior': 'ignore', 'title': 'DashboardIndex'}, 'ref': 'parkbot.core.dashboard_index.DashboardIndex'}, 'definitions': [_m2._figures_Share()]}


def _dashboard_index_Changed() -> dict[str, Any]:
    return {'type': 'model', 'cls': _m0.Changed, 'schema': {'type': 'model-fields', 'fields': {'decision_id': {'type': 'model-field', 'schema': {'type': 'str'}}, 'was_open': {'type': 'model-field', 'schema': {'type': 'default', 'schema': {'type': 'bool'}, 'default': True}}, 'moved': {'type': 'model-field', 'schema': {'type': 'default', 'schema': {'type': 'bool'}, 'default': False}}}, 'model_name': 'Changed', 'computed_fields': []}, 'custom_init': False, 'root_model': False, 'config': {'extra_fields_behavior': 'ignore', 'title': 'Changed'}, 'ref': 'parkbot.core.dashboard_index.Changed'}


MODELS: tuple[Prebuilt, ...] = (
    (_m0._Frozen, _dashboard_index__Frozen, {'extra_fields_behavior': 'ignore', 'title': '_Frozen'}),
    (_m0.DashboardEntry, _dashboard_index_DashboardEntry, {'extra_fields_behavior': 'ignore', 'title': 'DashboardEntry'}),
    (_m0.DashboardIndex, _dashboard_index_DashboardIndex, {'extra_fields_behavior': 'ignore', 'title': 'DashboardIndex'}),
    (_m0.Changed, _dashboard_index_Changed, {'extra_fields_behavior': 'ignore', 'title': 'Changed'}),
)

ADAPTERS: dict[str, tuple[Schema, dict[str, Any]]] = {
}

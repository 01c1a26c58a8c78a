"""Generated from the models by ``python -m tests.support.prebuilt --write``: do not edit.

The core schema of each model of ``parkbot.core.config`` (see :mod:`parkbot.core.prebuilt`).
"""

from __future__ import annotations

from typing import Any

from parkbot.core.prebuilt import Prebuilt, Schema
import parkbot.core.config as _m0

PYDANTIC_VERSION = '2.14.4'


def _config__Section() -> dict[str, Any]:
    return {'type': 'model', 'cls': _m0._Section, 'schema': {'type': 'model-fields', 'fields': {}, 'model_name': '_Section', 'computed_fields': []}, 'custom_init': False, 'root_model': False, 'config': {'extra_fields_behavior': 'forbid', 'title': '_Section'}, 'ref': 'parkbot.core.config._Section'}


def _config_Owners() -> dict[str, Any]:
    return {'type': 'model', 'cls': _m0.Owners, 'schema': {'type': 'model-fields', 'fields': {'default': {'type': 'model-field', 'schema': {'type': 'default', 'schema': {'type': 'nullable', 'schema': {'type': 'str'}}, 'default': None}}, 'origins': {'type': 'model-field', 'schema': {'type': 'default', 'schema': {'type': 'dict', 'keys_schema': {'type': 'str'}, 'values_schema': {'type': 'str'}}, 'default_factory': dict, 'default_factory_takes_data': False}}}, 'model_name': 'Owners', 'computed_fields': []}, 'custom_init': False, 'root_model': False, 'config': {'extra_fields_behavior': 'forbid', 'title': 'Owners'}, 'ref': 'parkbot.core.config.Owners'}


def _config_Limits() -> dict[str, Any]:
    return {'type': 'model', 'cls': _m0.Limits, 'schema': {'type': 'model-fields', 'fields': {'open_per_origin': {'type': 'model-field', 'schema': {'type': 'default', 'schema': {'type': 'int', 'ge': 1, 'le': 1000}, 'default': 3}}, 'open_per_run': {'type': 'model-field', 'schema': {'type': 'default', 'schema': {'type': 'int', 'ge': 1, 'le': 100000}, 'default': 20}}, 'one_blocking_question_per_origin': {'type': 'model-field', 'schema': {'type': 'default', 'schema': {'type': 'bool'}, 'default': False}}}, 'model_name': 'Limits', 'computed_fields': []}, 'custom_init': False, 'root_model': False, 'config': {'extra_fields_behavior': 'forbid', 'title': 'Limits'}, 'ref': 'parkbot.core.config.Limits'}


def _config_Paths() -> dict[str, Any]:
    return {'type': 'model', 'cls': _m0.Paths, 'schema': {'type': 'model-fields', 'fields': {'decisions': {'type': 'model-field', 'schema': {'type': 'default', 'schema': {'type': 'str'}, 'default': '.parkbot/decisions'}}, 'inventory': {'type': 'model-field', 'schema': {'type': 'default', 'schema': {'type': 'str'}, 'default': '.parkbot/inventory.json'}}}, 'model_name': 'Paths', 'computed_fields': []}, 'custom_init': False, 'root_model': False, 'config': {'extra_fields_behavior': 'forbid', 'title': 'Paths'}, 'ref': 'parkbot.core.config.Paths'}


def _config_Answers() -> dict[str, Any]:
    return {'type': 'model', 'cls': _m0.Answers, 'schema': {'type': 'model-fields', 'fields': {'require_signed': {'type': 'model-field', 'schema': {'type': 'default', 'schema': {'type': 'bool'}, 'default': False}}, 'allowed_signers': {'type': 'model-field', 'schema': {'type': 'default', 'schema': {'type': 'str'}, 'default': '.github/allowed_signers'}}}, 'model_name': 'Answers', 'computed_fields': []}, 'custom_init': False, 'root_model': False, 'config': {'extra_fields_behavior': 'forbid', 'title': 'Answers'}, 'ref': 'parkbot.core.config.Answers'}


def _config_Gate() -> dict[str, Any]:
    return {'type': 'model', 'cls': _m0.Gate, 'schema': {'type': 'model-fields', 'fields': {'publish': {'type': 'model-field', 'schema': {'type': 'default', 'schema': {'type': 'literal', 'expected': ['check', 'status', 'both']}, 'default': 'check'}}}, 'model_name': 'Gate', 'computed_fields': []}, 'custom_init': False, 'root_model': False, 'config': {'extra_fields_behavior': 'forbid', 'title': 'Gate'}, 'ref': 'parkbot.core.config.Gate'}


def _config_GitHubOptions() -> dict[str, Any]:
    return {'type': 'model', 'cls': _m0.GitHubOptions, 'schema': {'type': 'model-fields', 'fields': {'rate_limit_wait': {'type': 'model-field', 'schema': {'type': 'default', 'schema': {'type': 'function-before', 'function': {'type': 'no-info', 'function': _m0.GitHubOptions._duration}, 'schema': {'type': 'float', 'ge': 0, 'allow_inf_nan': False}}, 'default': 300.0}}}, 'model_name': 'GitHubOptions', 'computed_fields': []}, 'custom_init': False, 'root_model': False, 'config': {'extra_fields_behavior': 'forbid', 'title': 'GitHubOptions'}, 'ref': 'parkbot.core.config.GitHubOptions'}


def _config_Planner() -> dict[str, Any]:
    return {'type': 'model', 'cls': _m0.Planner, 'schema': {'type': 'model-fields', 'fields': {'by': {'type': 'model-field', 'schema': {'type': 'str', 'min_length': 1, 'max_length': 200}}, 'sources': {'type': 'model-field', 'schema': {'type': 'default', 'schema': {'type': 'list', 'items_schema': {'type': 'str'}}, 'default_factory': list, 'default_factory_takes_data': False}}, 'window': {'type': 'model-field', 'schema': {'type': 'default', 'schema': {'type': 'function-before', 'function': {'type': 'no-info', 'function': _m0.Planner._durations}, 'schema': {'type': 'float', 'ge': 0, 'allow_inf_nan': False}}, 'default': 1800.0}}, 'review': {'type': 'model-field', 'schema': {'type': 'default', 'schema': {'type': 'function-before', 'function': {'type': 'no-info', 'function': _m0.Planner._durations}, 'schema': {'type': 'float', 'ge': 0, 'allow_inf_nan': False}}, 'default': 259200.0}}, 'opens_gate': {'type': 'model-field', 'schema': {'type': 'default', 'schema': {'type': 'bool'}, 'default': True}}, 'never': {'type': 'model-field', 'schema': {'type': 'default', 'schema': {'type': 'list', 'items_schema': {'type': 'str'}}, 'default_factory': list, 'default_factory_takes_data': False}}}, 'model_name': 'Planner', 'computed_fields': []}, 'custom_init': False, 'root_model': False, 'config': {'extra_fields_behavior': 'forbid', 'title': 'Planner'}, 'ref': 'parkbot.core.config.Planner'}


def _config_Identity() -> dict[str, Any]:
    return {'type': 'model', 'cls': _m0.Identity, 'schema': {'type': 'model-fields', 'fields': {'previous': {'type': 'model-field', 'schema': {'type': 'default', 'schema': {'type': 'function-after', 'function': {'type': 'no-info', 'function': _m0.Identity._login}, 'schema': {'type': 'nullable', 'schema': {'type': 'str'}}}, 'default': None}}, 'app': {'type': 'model-field', 'schema': {'type': 'default', 'schema': {'type': 'function-after', 'function': {'type': 'no-info', 'function': _m0.Identity._login}, 'schema': {'type': 'nullable', 'schema': {'type': 'str'}}}, 'default': None}}}, 'model_name': 'Identity', 'computed_fields': []}, 'custom_init': False, 'root_model': False, 'config': {'extra_fields_behavior': 'forbid', 'title': 'Identity'}, 'ref': 'parkbot.core.config.Identity'}


def _config_Config() -> dict[str, Any]:
    return {'type': 'function-after', 'function': {'type': 'no-info', 'function': _m0.Config._signed_answers_need_configured_owners}, 'schema': {'type': 'model', 'cls': _m0.Config, 'schema': {'type': 'model-fields', 'fields': {'owners': {'type': 'model-field', 'schema': {'type': 'default', 'schema': _config_Owners(), 'default_factory': _m0.Owners, 'default_factory_takes_data': False}}, 'hierarchy': {'type': 'model-field', 'schema': {'type': 'default', 'schema': {'type': 'function-after', 'function': {'type': 'no-info', 'function': _m0.Config._acyclic}, 'schema': {'type': 'dict', 'keys_schema': {'type': 'str'}, 'values_schema': {'type': 'str'}}}, 'default_factory': dict, 'default_factory_takes_data': False}}, 'limits': {'type': 'model-field', 'schema': {'type': 'default', 'schema': _config_Limits(), 'default_factory': _m0.Limits, 'default_factory_takes_data': False}}, 'precedents': {'type': 'model-field', 'schema': {'type': 'default', 'schema': {'type': 'literal', 'expected': ['off', 'suggest', 'apply']}, 'default': 'suggest'}}, 'repository_permission_resolves': {'type': 'model-field', 'schema': {'type': 'default', 'schema': {'type': 'literal', 'expected': ['none', 'write', 'maintain', 'admin']}, 'default': 'none'}}, 'closed_without_answer': {'type': 'model-field', 'schema': {'type': 'default', 'schema': {'type': 'literal', 'expected': ['reopen', 'abandon']}, 'default': 'reopen'}}, 'requesters': {'type': 'model-field', 'schema': {'type': 'default', 'schema': {'type': 'list', 'items_schema': {'type': 'str'}}, 'default_factory': list, 'default_factory_takes_data': False}}, 'agent_branches': {'type': 'model-field', 'schema': {'type': 'default', 'schema': {'type': 'list', 'items_schema': {'type': 'str'}}, 'default_factory': _m0._default_agent_branches, 'default_factory_takes_data': False}}, 'paths': {'type': 'model-field', 'schema': {'type': 'default', 'schema': _config_Paths(), 'default_factory': _m0.Paths, 'default_factory_takes_data': False}}, 'backlog_ref': {'type': 'model-field', 'schema': {'type': 'default', 'schema': {'type': 'function-after', 'function': {'type': 'no-info', 'function': _m0.Config._ref}, 'schema': {'type': 'str'}}, 'default': 'refs/parkbot/backlog'}}, 'answers': {'type': 'model-field', 'schema': {'type': 'default', 'schema': _config_Answers(), 'default_factory': _m0.Answers, 'default_factory_takes_data': False}}, 'gate': {'type': 'model-field', 'schema': {'type': 'default', 'schema': _config_Gate(), 'default_factory': _m0.Gate, 'default_factory_takes_data': False}}, 'bot_login': {'type': 'model-field', 'schema': {'type': 'default', 'schema': {'type': 'nullable', 'schema': {'type': 'str'}}, 'default': None}}, 'github': {'type': 'model-field', 'schema': {'type': 'default', 'schema': _config_GitHubOptions(), 'default_factory': _m0.GitHubOptions, 'default_factory_takes_data': False}}, 'planner': {'type': 'model-field', 'schema': {'type': 'default', 'schema': {'type': 'nullable', 'schema': _config_Planner()}, 'default': None}}, 'identity': {'type': 'model-field', 'schema': {'type': 'default', 'schema': _config_Identity(), 'default_factory': _m0.Identity, 'default_factory_takes_data': False}}}, 'model_name': 'Config', 'computed_fields': []}, 'custom_init': False, 'root_model': False, 'config': {'extra_fields_behavior': 'forbid', 'title': 'Config'}}, 'ref': 'parkbot.core.config.Config'}


MODELS: tuple[Prebuilt, ...] = (
    (_m0._Section, _config__Section, {'extra_fields_behavior': 'forbid', 'title': '_Section'}),
    (_m0.Owners, _config_Owners, {'extra_fields_behavior': 'forbid', 'title': 'Owners'}),
    (_m0.Limits, _config_Limits, {'extra_fields_behavior': 'forbid', 'title': 'Limits'}),
    (_m0.Paths, _config_Paths, {'extra_fields_behavior': 'forbid', 'title': 'Paths'}),
    (_m0.Answers, _config_Answers, {'extra_fields_behavior': 'forbid', 'title': 'Answers'}),
    (_m0.Gate, _config_Gate, {'extra_fields_behavior': 'forbid', 'title': 'Gate'}),
    (_m0.GitHubOptions, _config_GitHubOptions, {'extra_fields_behavior': 'forbid', 'title': 'GitHubOptions'}),
    (_m0.Planner, _config_Planner, {'extra_fields_behavior': 'forbid', 'title': 'Planner'}),
    (_m0.Identity, _config_Identity, {'extra_fields_behavior': 'forbid', 'title': 'Identity'}),
    (_m0.Config, _config_Config, {'extra_fields_behavior': 'forbid', 'title': 'Config'}),
)

ADAPTERS: dict[str, tuple[Schema, dict[str, Any]]] = {
}

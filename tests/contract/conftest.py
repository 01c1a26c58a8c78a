"""Runs every contract test against every backend: a fake can never drift from the real thing."""

from __future__ import annotations

import importlib
from collections.abc import Iterator
from typing import Any

import pytest

HARNESSES = {
    "memory": ("tests.contract.harness_memory", "make_memory_harness"),
    "git": ("tests.contract.harness_git", "make_git_harness"),
    "github": ("tests.contract.harness_github", "make_github_harness"),
    # parkbot serve's tracker: an App's installation token, <app-slug>[bot] as parkbot's identity
    "github-app": ("tests.contract.harness_github_app", "make_github_app_harness"),
}


@pytest.fixture(params=sorted(HARNESSES))
def harness(request: pytest.FixtureRequest, tmp_path: Any) -> Iterator[Any]:
    module_name, factory = HARNESSES[request.param]
    module = importlib.import_module(module_name)
    made = getattr(module, factory)(tmp_path)
    try:
        yield made
    finally:
        made.close()

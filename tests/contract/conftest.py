"""Runs every contract test against every backend: a fake can never drift from the real thing.

A contract module that sets ``SIGNED_MODE = True`` also runs against ``git-signed``: the git backlog
with ``answers.require_signed``, real SSH keys and an allowed-signers file, where every act is signed
with the key of whoever acts (see :class:`tests.contract.harness_git.SignedGitHarness`).
"""

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
SIGNED = {"git-signed": ("tests.contract.harness_git", "make_signed_git_harness")}


def pytest_generate_tests(metafunc: pytest.Metafunc) -> None:
    if "harness" in metafunc.fixturenames:
        names = sorted(HARNESSES) + (sorted(SIGNED) if getattr(metafunc.module, "SIGNED_MODE", False) else [])
        metafunc.parametrize("harness", names, indirect=True)


@pytest.fixture
def harness(request: pytest.FixtureRequest, tmp_path: Any) -> Iterator[Any]:
    module_name, factory = {**HARNESSES, **SIGNED}[request.param]
    module = importlib.import_module(module_name)
    made = getattr(module, factory)(tmp_path)
    try:
        yield made
    finally:
        made.close()

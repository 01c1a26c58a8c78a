"""The action and the workflows read as data (YAML with its `on:` key kept as text)."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import yaml

PINNED = re.compile(r"^[\w.-]+/[\w./-]+@[0-9a-f]{40}$")


VERSION_COMMENT = re.compile(r"#\s*v\d+\.\d+\.\d+\b")


def load(path: Path) -> Any:
    # PyYAML reads the `on:` key as True; keep it as text.
    text = path.read_text(encoding="utf-8")
    data = yaml.safe_load(text)
    if isinstance(data, dict) and True in data:
        data["on"] = data.pop(True)
    return data


def steps_of(data: dict[str, Any]) -> list[dict[str, Any]]:
    if "runs" in data:
        return list(data["runs"].get("steps") or [])
    return [step for job in data["jobs"].values() for step in job.get("steps") or []]


def uses_lines(path: Path) -> list[str]:
    lines = (line.strip() for line in path.read_text(encoding="utf-8").splitlines())
    return [line for line in lines if re.match(r"^(- )?uses:", line)]

"""PyYAML's safe loader with the surprises taken out, for the configuration file.

Imported only when a configuration file is read (:func:`parkbot.core.config.check_config`), so a
command in a repository without one never pays for importing PyYAML (a few tens of milliseconds); and
then only PyYAML's loading side is loaded: its package's ``__init__`` (which loads the dumping side
and the C extension too) runs only if something else asks the package for a name
(:mod:`parkbot.core.packages`).
"""

from __future__ import annotations

import re
from typing import Any

from parkbot.core.packages import enter

enter("yaml")

import yaml.error  # noqa: E402 - once the package is entered
import yaml.events  # noqa: E402
import yaml.loader  # noqa: E402
import yaml.nodes  # noqa: E402
import yaml.resolver  # noqa: E402
from yaml.constructor import ConstructorError  # noqa: E402
from yaml.error import MarkedYAMLError  # noqa: E402
from yaml.reader import ReaderError  # noqa: E402

from parkbot.core.config import MAX_DEPTH, YAML11_BOOLEANS, ConfigWarning  # noqa: E402

__all__ = ["ConstructorError", "MarkedYAMLError", "ReaderError", "StrictLoader"]


class _Refused(MarkedYAMLError):
    """Valid YAML that a configuration may not use (aliases, repeated keys, absurd nesting)."""


class StrictLoader(yaml.loader.SafeLoader):
    """PyYAML's safe loader with the surprises taken out, remembering the line of every key.

    * no anchors or aliases: an alias bomb (a few lines expanding to gigabytes) cannot be written;
    * a key given twice is an error naming both lines, not "the last one wins";
    * nesting is bounded (:data:`MAX_DEPTH`), so a hostile file cannot exhaust the stack;
    * booleans are YAML 1.2's: only ``true``/``false``. ``off``, ``on``, ``yes``, ``no`` stay text, so
      ``precedents: off`` means the setting ``off``; where a setting is a true/false switch, pydantic
      still reads ``yes``/``no`` as one.
    """

    def __init__(self, stream: str) -> None:
        super().__init__(stream)
        self.depth = 0
        self.warnings: list[ConfigWarning] = []

    def compose_node(self, parent: Any, index: Any) -> Any:
        event = self.peek_event()  # type: ignore[no-untyped-call]
        mark: yaml.error.Mark | None = event.start_mark
        if isinstance(event, yaml.events.AliasEvent) or (isinstance(event, yaml.events.NodeEvent) and event.anchor):
            raise _Refused(
                None, None, "anchors and aliases are not allowed in the configuration; write the value out", mark
            )
        self.depth += 1
        if self.depth > MAX_DEPTH:
            raise _Refused(None, None, f"the configuration is nested more than {MAX_DEPTH} levels deep", mark)
        try:
            return super().compose_node(parent, index)
        finally:
            self.depth -= 1


def _construct_mapping(loader: StrictLoader, node: yaml.nodes.MappingNode) -> dict[Any, Any]:
    seen: dict[Any, int] = {}
    for key_node, _ in node.value:
        key = loader.construct_object(key_node, deep=True)
        line = key_node.start_mark.line + 1
        if isinstance(key, str | int | float | bool):  # any other key is refused by construct_mapping below
            if key in seen:
                raise _Refused(
                    None,
                    None,
                    f"the key {key!r} is given twice (lines {seen[key]} and {line}); keep one",
                    key_node.start_mark,
                )
            seen[key] = line
    mapping = loader.construct_mapping(node, deep=True)
    mapping["__lines__"] = seen
    return mapping


def _construct_plain(loader: StrictLoader, node: yaml.nodes.ScalarNode) -> Any:
    value = loader.construct_scalar(node)
    if node.style is None and str(value).lower() in YAML11_BOOLEANS:
        loader.warnings.append(
            ConfigWarning(
                node.start_mark.line + 1,
                f"{value} is read as the text {value!r}, but YAML 1.1 tools read it as "
                f'{str(value).lower() in ("y", "yes", "on")}: quote it ("{value}") to be clear',
            )
        )
    return value


StrictLoader.add_constructor(yaml.resolver.BaseResolver.DEFAULT_MAPPING_TAG, _construct_mapping)
# YAML 1.2 booleans: drop PyYAML's YAML 1.1 resolver for yes/no/on/off and resolve only true/false.
StrictLoader.yaml_implicit_resolvers = {
    first: [(tag, regexp) for tag, regexp in resolvers if tag != "tag:yaml.org,2002:bool"]
    for first, resolvers in yaml.loader.SafeLoader.yaml_implicit_resolvers.items()
}
StrictLoader.add_implicit_resolver(
    "tag:yaml.org,2002:bool", re.compile(r"^(?:true|True|TRUE|false|False|FALSE)$"), list("tTfF")
)
StrictLoader.add_constructor("tag:yaml.org,2002:str", _construct_plain)

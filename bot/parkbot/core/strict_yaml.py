"""PyYAML's safe loader with the surprises taken out, for the configuration file.

Imported only when a configuration file is read (:func:`parkbot.core.config.check_config`), so a
command in a repository without one never pays for importing PyYAML (a few tens of milliseconds); and
then only PyYAML's loading side is loaded: its package's ``__init__`` (which loads the dumping side
and the C extension too) runs only if something else asks the package for a name
(:mod:`parkbot.core.packages`).

PyYAML parses; only its Reader is replaced, by :class:`TextReader`. The configuration is decoded
before it is read (:func:`parkbot.core.config.decode_config`), so all a reader does is walk a text and
refuse the characters YAML forbids. PyYAML's compiles, when its module is imported, a pattern of the
characters YAML *allows* up to U+10FFFF: about 3 ms, a third of the 15 % a configuration file may add
to a command's start (docs/development/performance.md), for one pattern. :class:`TextReader` moves and
marks exactly as PyYAML's Reader does on text, and refuses the same characters with the same
:class:`ReaderError` (``tests/core/test_strict_yaml.py`` holds the two together on any text).
"""

from __future__ import annotations

import re
from typing import Any

from parkbot.core.packages import enter

enter("yaml")

import yaml.events  # noqa: E402 - once the package is entered
import yaml.nodes  # noqa: E402
from yaml.composer import Composer  # noqa: E402
from yaml.constructor import ConstructorError, SafeConstructor  # noqa: E402
from yaml.error import Mark, MarkedYAMLError, YAMLError  # noqa: E402
from yaml.parser import Parser  # noqa: E402
from yaml.resolver import BaseResolver, Resolver  # noqa: E402
from yaml.scanner import Scanner  # noqa: E402

from parkbot.core.config import MAX_DEPTH, YAML11_BOOLEANS, ConfigWarning  # noqa: E402

__all__ = ["ConstructorError", "MarkedYAMLError", "ReaderError", "StrictLoader", "TextReader"]

#: The characters below U+0100 that YAML refuses: the C0 controls but tab, line feed and carriage
#: return; DEL; the C1 controls but NEL. A set within Latin-1 compiles to a 256-entry table in no time.
_CONTROLS = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x84\x86-\x9f]")


def _first_refused(text: str) -> int | None:
    """Where the first character YAML refuses is in ``text`` (PyYAML's printable check), if anywhere."""
    found = _CONTROLS.search(text)
    end = found.start() if found else len(text)
    if not text.isascii():
        # Above U+00FF, YAML refuses the surrogates, U+FFFE and U+FFFF only. Found without a pattern: a
        # set reaching past U+00FF compiles to a table of the whole Basic Multilingual Plane.
        for refused in ("\ufffe", "\uffff"):
            at = text.find(refused, 0, end)
            end = at if at >= 0 else end
        try:
            text[:end].encode("utf-8")  # strict UTF-8 encodes every character but a surrogate
        except UnicodeEncodeError as exc:
            end = exc.start
    return end if end < len(text) else None


class ReaderError(YAMLError):
    """A character YAML refuses: PyYAML's ``yaml.reader.ReaderError`` for text, in the same words and
    with the same attributes (PyYAML's own lives in the module this one does without)."""

    def __init__(self, name: str, position: int, character: int, encoding: str, reason: str) -> None:
        self.name = name
        self.character = character
        self.position = position
        self.encoding = encoding
        self.reason = reason

    def __str__(self) -> str:
        return (
            f"unacceptable character #x{self.character:04x}: {self.reason}\n"
            f'  in "{self.name}", position {self.position}'
        )


class TextReader:
    """PyYAML's Reader for a text (see the module): the same ``peek``, ``prefix``, ``forward`` and
    ``get_mark``, lines ending at ``\\n``, ``\\r`` (``\\r\\n`` once), NEL, U+2028 and U+2029, and a
    byte order mark taking no column."""

    def __init__(self, stream: str) -> None:
        if not isinstance(stream, str):
            raise TypeError(f"the configuration is read as text, not {type(stream).__name__}")
        self.name = "<unicode string>"
        self.encoding = None  # what the scanner's first token reports: a text was not decoded here
        self.index = self.line = self.column = 0
        refused = _first_refused(stream)
        if refused is not None:
            raise ReaderError(self.name, refused, ord(stream[refused]), "unicode", "special characters are not allowed")
        self.buffer = stream + "\0"
        self.pointer = 0

    def peek(self, index: int = 0) -> str:
        return self.buffer[self.pointer + index]

    def prefix(self, length: int = 1) -> str:
        return self.buffer[self.pointer : self.pointer + length]

    def forward(self, length: int = 1) -> None:
        buffer = self.buffer
        while length:
            ch = buffer[self.pointer]
            self.pointer += 1
            self.index += 1
            if ch in "\n\x85\u2028\u2029" or (ch == "\r" and buffer[self.pointer] != "\n"):
                self.line += 1
                self.column = 0
            elif ch != "\ufeff":
                self.column += 1
            length -= 1

    def get_mark(self) -> Mark:
        return Mark(self.name, self.index, self.line, self.column, self.buffer, self.pointer)


class _Refused(MarkedYAMLError):
    """Valid YAML that a configuration may not use (aliases, repeated keys, absurd nesting)."""


def start_loading(loader: Any) -> None:
    """Start PyYAML's scanner, parser, composer, safe constructor and resolver on ``loader``, whose reader
    was started first: the loader PyYAML's own ``SafeLoader`` is, but for the reader."""
    Scanner.__init__(loader)
    Parser.__init__(loader)
    Composer.__init__(loader)
    SafeConstructor.__init__(loader)
    Resolver.__init__(loader)


class StrictLoader(TextReader, Scanner, Parser, Composer, SafeConstructor, Resolver):
    """PyYAML's safe loader with the surprises taken out, remembering the line of every key.

    * no anchors or aliases: an alias bomb (a few lines expanding to gigabytes) cannot be written;
    * a key given twice is an error naming both lines, not "the last one wins";
    * nesting is bounded (:data:`MAX_DEPTH`), so a hostile file cannot exhaust the stack;
    * booleans are YAML 1.2's: only ``true``/``false``. ``off``, ``on``, ``yes``, ``no`` stay text, so
      ``precedents: off`` means the setting ``off``; where a setting is a true/false switch, pydantic
      still reads ``yes``/``no`` as one.
    """

    def __init__(self, stream: str) -> None:
        TextReader.__init__(self, stream)
        start_loading(self)
        self.depth = 0
        self.warnings: list[ConfigWarning] = []

    def compose_node(self, parent: Any, index: Any) -> Any:
        event = self.peek_event()  # type: ignore[no-untyped-call]
        mark: Mark | None = event.start_mark
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


# (PyYAML's stubs accept constructors for its own loader classes only; this one is made of the same parts.)
StrictLoader.add_constructor(BaseResolver.DEFAULT_MAPPING_TAG, _construct_mapping)  # type: ignore[type-var]
# YAML 1.2 booleans: drop PyYAML's YAML 1.1 resolver for yes/no/on/off and resolve only true/false.
StrictLoader.yaml_implicit_resolvers = {
    first: [(tag, regexp) for tag, regexp in resolvers if tag != "tag:yaml.org,2002:bool"]
    for first, resolvers in Resolver.yaml_implicit_resolvers.items()
}
StrictLoader.add_implicit_resolver(
    "tag:yaml.org,2002:bool", re.compile(r"^(?:true|True|TRUE|false|False|FALSE)$"), list("tTfF")
)
StrictLoader.add_constructor("tag:yaml.org,2002:str", _construct_plain)  # type: ignore[type-var]

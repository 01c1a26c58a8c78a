"""parkbot.core.strict_yaml's reader of text against PyYAML's own Reader, on any text.

parkbot reads the configuration with a reader of its own (PyYAML's compiles, at import, a regular
expression costing a third of what a configuration file may add to a command's start); the rest is PyYAML's.
So, for any text: the same data, or the same error in the same words at the same place. The reference
loaders below are made of PyYAML's pieces, its Reader included.
"""

from __future__ import annotations

from typing import Any

import pytest
import yaml.reader
from hypothesis import example, given, settings
from hypothesis import strategies as st
from yaml.composer import Composer
from yaml.constructor import SafeConstructor
from yaml.parser import Parser
from yaml.resolver import Resolver
from yaml.scanner import Scanner

from parkbot.core.strict_yaml import ReaderError, StrictLoader, TextReader, start_loading


class PyYAMLStrict(yaml.reader.Reader, StrictLoader):
    """parkbot's strict loader reading with PyYAML's Reader instead of its own."""

    def __init__(self, stream: str) -> None:
        yaml.reader.Reader.__init__(self, stream)
        start_loading(self)
        self.depth = 0
        self.warnings = []


class TextSafeLoader(TextReader, Scanner, Parser, Composer, SafeConstructor, Resolver):
    """PyYAML's SafeLoader reading with parkbot's reader instead of its own."""

    def __init__(self, stream: str) -> None:
        TextReader.__init__(self, stream)
        start_loading(self)


def where(mark: Any) -> tuple[int, int, int] | None:
    return None if mark is None else (mark.index, mark.line, mark.column)


def failure(exc: Exception) -> tuple[Any, ...]:
    marks = tuple(where(getattr(exc, name, None)) for name in ("context_mark", "problem_mark"))
    fields = tuple(getattr(exc, name, None) for name in ("name", "character", "position", "encoding", "reason"))
    return ("error", type(exc).__name__, str(exc), marks, fields)


def load(loader_class: Any, text: str) -> tuple[Any, ...]:
    """What a loader makes of ``text``: its data and warnings, or its error."""
    try:
        loader = loader_class(text)
        try:
            data = loader.get_single_data()
        finally:
            loader.dispose()
    except Exception as exc:  # any error at all must be the same error
        return failure(exc)
    return ("data", repr(data), repr(getattr(loader, "warnings", None)))


def tokens(loader_class: Any, text: str) -> list[tuple[Any, ...]]:
    """Every token the scanner makes of ``text``, with where it starts and ends, up to its error if any."""
    seen: list[tuple[Any, ...]] = []
    try:
        loader = loader_class(text)
        while loader.check_token():
            token = loader.get_token()
            seen.append((type(token).__name__, where(token.start_mark), where(token.end_mark)))
    except Exception as exc:
        seen.append(failure(exc))
    return seen


#: Characters YAML refuses: C0 controls, DEL, C1 controls, surrogates, U+FFFE and U+FFFF.
REFUSED = [
    "\x00", "\x07", "\x08", "\x0b", "\x0c", "\x0e", "\x1b", "\x1f", "\x7f", "\x80", "\x84", "\x86", "\x9f",
    "\ud800", "\udfff", "\ufffe", "\uffff",
]  # fmt: skip
#: Pieces of YAML, line breaks of every kind, the byte order mark (no column), and characters accepted
#: on either side of the refused ones.
PIECES = [
    *"\n\r\t :-?,[]{}#&*!|>'\"%@`~=<\\.",
    "\r\n", "\x85", "\u2028", "\u2029", "\ufeff",
    "\xa0", "\xe9", "\ud7ff", "\ue000", "\ufffd", "\U00010000", "\U0001f600", "\U0010ffff",
    "a", "key", "owners", "default: x", "yes", "off", "true", "~", "null", "1", "0x1f", "1.5", ".nan",
    "2026-12-02", "\"\\x41\"", "'it''s'", "- ", "key: ", "  ", "---", "...", "%YAML 1.1\n", "!!str ", "&a ",
    "*a", "<<: ", "? ", "Xy", "Q",
]  # fmt: skip

TEXTS = st.one_of(
    st.lists(st.sampled_from(PIECES), max_size=40).map("".join),
    st.lists(st.sampled_from(PIECES + REFUSED), max_size=40).map("".join),
    st.text(max_size=60),
    st.text(alphabet=st.characters(codec="utf-8"), max_size=60),
)

TRICKY = [
    "",
    "owners:\n  default: bench@example.com\n",
    "\ufeffowners:\r\n  default: a\r\n  default: b\r\n",
    "a: 1\rb: [\x85c,\u2028d\u2029]\n",
    "owners:\n  default: a\x07b\n",
    "\x85\x85\x9f",
    "a: \ud83d\ude00\n",
    "a: \ufffe",
    "k: [1,\r\n  \ufeff2,\r\r\n 3\u2028]\r",
    "a: &x 1\nb: *x\n",
    "\t- x",
    'a: "\\\r\n b"',
]


@pytest.mark.parametrize("text", TRICKY)
def test_tricky_texts_read_the_same(text: str) -> None:
    assert load(StrictLoader, text) == load(PyYAMLStrict, text)
    assert load(TextSafeLoader, text) == load(yaml.SafeLoader, text)
    assert tokens(TextSafeLoader, text) == tokens(yaml.SafeLoader, text)


@settings(max_examples=600, deadline=None)
@given(TEXTS)
@example("owners:\n  default: \x07\n")
def test_any_text_reads_the_same_with_parkbots_reader_as_with_pyyamls(text: str) -> None:
    assert load(StrictLoader, text) == load(PyYAMLStrict, text)
    assert load(TextSafeLoader, text) == load(yaml.SafeLoader, text)
    assert tokens(TextSafeLoader, text) == tokens(yaml.SafeLoader, text)


def attempt(method: Any, *args: Any) -> Any:
    try:
        return method(*args)
    except IndexError:
        return IndexError


@settings(max_examples=300, deadline=None)
@given(st.lists(st.sampled_from(PIECES + REFUSED), max_size=30).map("".join), st.data())
def test_the_reader_moves_through_any_text_as_pyyamls_does(text: str, data: st.DataObject) -> None:
    """Peeking, taking a prefix and stepping forward by any amount: the same characters at the same
    index, line and column, and marks with the same snippet."""
    refused: yaml.reader.ReaderError | None = None
    try:
        reference = yaml.reader.Reader(text)
    except yaml.reader.ReaderError as exc:
        refused = exc
    if refused is not None:
        with pytest.raises(ReaderError) as raised:
            TextReader(text)
        assert failure(raised.value)[2:] == failure(refused)[2:]
        return
    ours = TextReader(text)
    assert (ours.name, ours.encoding) == (reference.name, reference.encoding)
    while reference.peek() != "\0":
        assert ours.prefix() == reference.prefix()
        ahead = data.draw(st.integers(0, 4))
        assert attempt(ours.peek, ahead) == attempt(reference.peek, ahead)  # past the end: IndexError both
        assert ours.prefix(ahead + 1) == reference.prefix(ahead + 1)
        step = data.draw(st.integers(1, max(1, len(reference.buffer) - reference.pointer - 1)))
        ours.forward(step)
        reference.forward(step)
        assert (ours.index, ours.line, ours.column) == (reference.index, reference.line, reference.column)
        mine, theirs = ours.get_mark(), reference.get_mark()
        assert type(mine) is type(theirs)
        assert vars(mine) == vars(theirs)
        assert str(mine) == str(theirs)


def test_a_refused_character_is_reported_as_pyyaml_reports_it() -> None:
    with pytest.raises(ReaderError) as raised:
        StrictLoader("ab\x07")
    assert str(raised.value) == (
        'unacceptable character #x0007: special characters are not allowed\n  in "<unicode string>", position 2'
    )
    assert (raised.value.name, raised.value.character, raised.value.position) == ("<unicode string>", 7, 2)
    assert (raised.value.encoding, raised.value.reason) == ("unicode", "special characters are not allowed")
    assert isinstance(raised.value, yaml.error.YAMLError)


def test_only_text_is_read() -> None:
    """The configuration is decoded before it is read (parkbot.core.config.decode_config): bytes are a mistake."""
    with pytest.raises(TypeError, match=r"^the configuration is read as text, not bytes$"):
        StrictLoader(b"owners: {}\n")  # type: ignore[arg-type]

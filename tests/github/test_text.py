"""Untrusted text: no pings, no HTML, no way out of a hidden block, GitHub's size limits."""

from __future__ import annotations

import html
import json
import re

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from parkbot import markdown
from parkbot.trackers.github import text

# What GitHub could turn into a mention: an @ directly followed by a login or org/team character, and not
# preceded by a letter or digit (GitHub leaves the @ of bob@example.com alone). An underscore before the @
# counts as no protection, since "_x_@bob" renders as emphasis followed by a bare "@bob".
MENTION = re.compile(r"(?<![A-Za-z0-9])@[A-Za-z0-9_]")
# Markdown characters that must only ever appear escaped in literal text.
SYNTAX = "\\`*_{}[]()#+!|~$"
json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.text(),
    lambda children: st.lists(children, max_size=4) | st.dictionaries(st.text(max_size=8), children, max_size=4),
    max_leaves=20,
)


@pytest.mark.parametrize(
    "raw",
    [
        "@alice please look",
        "cc @acme/leads",
        "(@bob)",
        "@@carol",
        "@_x",
        "`@dave`",
        "_x_@erin",
        "x_@frank",
        "**@grace**",
        "\u00e9@heidi",
        "mail bob@example.com, cc @ivan",
    ],
)
def test_mentions_are_neutralized(raw: str) -> None:
    safe = markdown.neutralize_mentions(raw)
    assert not MENTION.search(safe)
    assert safe.replace(markdown.ZWJ, "") == raw  # reads the same
    assert markdown.neutralize_mentions(safe) == safe  # once is enough


@pytest.mark.parametrize("address", ["bob@example.com", "first.last+tag@mail.example.org", "BOB99@EXAMPLE.COM", "a@b"])
def test_e_mail_addresses_are_left_intact(address: str) -> None:
    """An @ after a letter or digit starts no mention on GitHub, so the address copies as written."""
    for escape in (markdown.neutralize_mentions, markdown.escape_markdown, markdown.table_cell):
        assert escape(f"owner: {address}") == f"owner: {address}", escape
    assert markdown.literal("bob@example.com, cc @carol") == "bob@example.com, cc @" + markdown.ZWJ + "carol"


@given(st.text())
def test_no_mention_survives_any_text(raw: str) -> None:
    assert not MENTION.search(markdown.escape_markdown(raw))
    assert not MENTION.search(markdown.table_cell(raw))
    assert not MENTION.search(markdown.literal(raw))


@given(st.text(), st.text())
def test_no_mention_appears_where_two_escaped_pieces_meet(a: str, b: str) -> None:
    for escape in (markdown.escape_markdown, markdown.literal):
        assert not MENTION.search(escape(a) + escape(b))


@given(st.text())
def test_literal_text_uses_no_markdown_and_reads_as_written(raw: str) -> None:
    safe = markdown.literal(raw)
    assert "\n" not in safe
    assert "\r" not in safe
    assert "<" not in safe
    assert ">" not in safe
    # Every Markdown character is backslash-escaped: no emphasis, code, link, image or table cell edge.
    unescaped = re.sub(r"\\.", "", safe)
    assert not [c for c in unescaped if c in SYNTAX]
    # And it reads as the text on one line: undo the escapes, the entities and the joiners.
    shown = html.unescape(re.sub(r"\\(.)", r"\1", safe)).replace(markdown.ZWJ, "")
    assert shown == " ".join(raw.split()).replace(markdown.ZWJ, "")


def test_literal_text_starts_no_list_and_no_heading() -> None:
    assert markdown.literal("1. first") == "1\\. first"
    assert markdown.literal("- item") == "\\- item"
    assert markdown.literal("# title") == "\\# title"
    assert (
        markdown.literal("[x](https://evil.example) ![i](y)") == "\\[x\\]\\(https://evil.example\\) \\!\\[i\\]\\(y\\)"
    )


def test_links_only_to_web_addresses() -> None:
    assert markdown.link("`a`", "https://github.com/o/r/issues/1") == "[`a`](https://github.com/o/r/issues/1)"
    for bad in (None, "", "javascript:alert(1)", "https://x.example/a b", "https://x.example/(y)", "file:///etc"):
        assert markdown.link("`a`", bad) == "`a`"


def test_code_in_a_table_cell_cannot_end_the_cell() -> None:
    assert markdown.table_code("a|b`c") == "``a\\|b`c``"


@given(st.text())
def test_escaped_text_holds_no_tag_and_no_comment_delimiter(raw: str) -> None:
    safe = markdown.escape_markdown(raw)
    assert "<" not in safe
    assert ">" not in safe
    assert "-->" not in safe


def test_html_is_shown_not_interpreted() -> None:
    assert markdown.escape_html("<script>x</script> & <!-- -->") == (
        "&lt;script&gt;x&lt;/script&gt; &amp; &lt;!-- --&gt;"
    )


@given(st.text())
def test_table_cell_is_one_line_without_bare_pipes(raw: str) -> None:
    cell = markdown.table_cell(raw)
    assert "\n" not in cell
    assert "\r" not in cell
    assert not re.search(r"(?<!\\)(?:\\\\)*\|", cell)


@given(json_values)
def test_hidden_json_round_trips_and_cannot_close_a_comment(value: object) -> None:
    encoded = text.hidden_json(value)
    assert json.loads(encoded) == value
    for forbidden in ("<", ">", "&", "@", "\n", "-->"):
        assert forbidden not in encoded


def test_hidden_json_of_a_breakout_attempt() -> None:
    attack = {"q": "--> <img src=x onerror=alert(1)> <!-- @alice"}
    encoded = text.hidden_json(attack)
    assert "-->" not in encoded
    assert "<" not in encoded
    assert json.loads(encoded) == attack


@given(json_values)
def test_pack_round_trips_with_plain_ascii(value: object) -> None:
    packed = text.pack(value)
    assert re.fullmatch(r"[A-Za-z0-9+/=]*", packed)
    assert text.unpack(packed) == value


def test_unpack_rejects_garbage() -> None:
    with pytest.raises(ValueError, match="not a packed"):
        text.unpack("not base64 at all!")


@given(st.text(), st.integers(min_value=0, max_value=200))
def test_truncate_respects_the_limit(raw: str, limit: int) -> None:
    cut = markdown.truncate(raw, limit)
    assert len(cut) <= limit
    if len(raw) <= limit:
        assert cut == raw
    elif limit > 1:
        assert cut.endswith(markdown.ELLIPSIS)


def test_one_line_for_titles_and_status_descriptions() -> None:
    assert markdown.one_line("a\n  b\tc", 140) == "a b c"
    assert len(markdown.one_line("x" * 500, text.STATUS_DESCRIPTION_LIMIT)) == 140


@given(st.text())
def test_code_block_cannot_be_closed_by_its_content(raw: str) -> None:
    block = markdown.code_block(raw, "json")
    fence = block.split("\n", 1)[0].removesuffix("json")
    inner = block[len(fence) + len("json") + 1 : -len(fence)]
    assert not re.search(rf"^ {{0,3}}{fence}", inner, re.M)


@given(st.text())
def test_code_span_content_cannot_escape(raw: str) -> None:
    span = markdown.code_span(raw)
    fence = re.match(r"`+", span).group(0)  # type: ignore[union-attr]
    assert span.endswith(fence)
    inner = span[len(fence) : -len(fence)]
    assert fence not in inner
    assert "\n" not in span


@settings(max_examples=50)
@given(st.text(min_size=1), st.integers(min_value=1, max_value=50))
def test_chunks_reassemble(raw: str, size: int) -> None:
    pieces = text.chunks(raw, size)
    assert "".join(pieces) == raw
    assert all(len(p) <= size for p in pieces)


def test_limits_match_github() -> None:
    assert text.GITHUB_BODY_LIMIT == 65_536
    assert text.SAFE_BODY_LIMIT < text.GITHUB_BODY_LIMIT
    assert text.STATUS_DESCRIPTION_LIMIT == 140

"""What "the same question" means: the one normalizer behind precedents, index keys and the report.

Two questions are *the same question* when :func:`normalize_question` maps them to the same text:
case folded, quoted names, ids and numbers replaced by placeholders, whitespace collapsed. Precedents
(:mod:`parkbot.core.policy`) cite an earlier answer on that basis, and both backends index resolutions by
it (the git backlog's ``precedents/`` paths, the GitHub ``question`` labels).

The report's clusters of recurring questions group by :func:`cluster_key`, which is computed from the
normalized text and only ever merges more (see there for why it is coarser).

The normalized text is part of the stored indexes: a changed byte moves every stored key, and earlier
answers stop being found as precedents. Change it only together with a migration of those indexes.
"""

from __future__ import annotations

import functools
import re

_NUMBER = re.compile(r"\b\d+(?:[.,]\d+)*\b")
_IDENT = re.compile(r"\b(?:[a-z]+-\d+|[0-9a-f]{7,40}|[0-9a-f]{8}-[0-9a-f-]{27})\b")
_QUOTED = re.compile(r"([\"'`]).*?\1")
_SPACE = re.compile(r"\s+")

# What only the report's :func:`coarsen` uses: patterns, compiled on their first use, not when a park loads this
# module for its precedents.
_CURLY = "\u201c[^\u201d\n]*\u201d|\u2018[^\u2019\n]*\u2019"
_DIGIT = r"\d"
# A word that mixes digits with letters or underscores: v2, order_7, 12d3, x86.
_MIXED = r"\b(?=\w*\d)(?=\w*[^\W\d])\w+\b"
# Placeholders chained by separators, what a uuid or a dotted id becomes: <id>-<id>-<n>, <n>.<id>.
_CHAIN = r"<(?:id|n)>(?:[-_.:#/]<(?:id|n)>)+"


def normalize_question(text: str) -> str:
    """Question text with the case-specific parts (numbers, ids, quoted names) taken out.

    ``"Order A-4471: refund 'the rest' for 12.50?"`` becomes ``"order <id>: refund <q> for <n>"``.
    """
    lowered = text.casefold()
    lowered = _QUOTED.sub("<q>", lowered)
    lowered = _IDENT.sub("<id>", lowered)
    lowered = _NUMBER.sub("<n>", lowered)
    return _SPACE.sub(" ", lowered).strip(" ?.!")


@functools.cache
def _compiled(pattern: str) -> re.Pattern[str]:
    """A pattern of :func:`coarsen`, compiled once (``re``'s own cache is looked up again at every call)."""
    return re.compile(pattern)


def coarsen(normalized: str) -> str:
    """The report's key for an already normalized question (see :func:`cluster_key`)."""
    text = normalized
    if "\u201c" in text or "\u2018" in text:
        text = _compiled(_CURLY).sub("<q>", text)
    if _compiled(_DIGIT).search(text):
        text = _compiled(_MIXED).sub("<id>", text)
    if "<" in text:
        text = _compiled(_CHAIN).sub("<id>", text)
    return text


def cluster_key(question: str) -> str:
    """When two questions count as the same *recurring* question: :func:`normalize_question`, coarsened.

    Why coarser. :func:`normalize_question` decides when an earlier answer may be cited as a
    precedent, and its output is hashed into stored indexes, so it stays exactly as it is and errs on
    the side of keeping questions apart. It leaves some specifics in place: curly-quoted names, ids
    that mix letters and digits (``v2``, ``order_7``) and the inner parts of a uuid. For the report,
    those are still the same question asked about a different thing, which is exactly what a lead
    wants grouped. So the report's key is computed *from* the normalized text, never from the raw
    question: two questions that are the same for precedents are always in the same cluster, and the
    report only ever merges more.
    """
    return coarsen(normalize_question(question))

"""The instructions to give an agent (and the planner), built from the constants the code enforces.

Every number in the text is read from :mod:`parkbot.core.models` (field limits) and
:class:`parkbot.core.config.Limits` (question budgets), and every JSON example is validated by the
tests, so the guide cannot promise what ``park`` refuses. Shared by two surfaces, so neither imports
the other: ``parkbot guide`` prints it (:mod:`parkbot.cli.guide`) and ``parkbot mcp`` sends it as the
server's instructions (:mod:`parkbot.mcp_server`).
"""

from __future__ import annotations

import json
from typing import Any

#: The examples the guide shows, one per result; the tests file each one through ``park``.
EXAMPLES: dict[str, dict[str, Any]] = {
    "needs_input": {
        "status": "needs_input",
        "origin": "billing-42",
        "key": "refund",
        "question": "Two of the five items were refunded already. Refund the remaining three, or the full total?",
        "options": ["remaining_three: 412.00", "full_original: 690.00"],
        "guess": "remaining_three",
        "work_so_far": {"verified": ["A-4471"], "next": "issue the refund"},
        "blocking": True,
        "dependents": ["branch:agent/billing-42"],
    },
    "done_with_assumptions": {
        "status": "done_with_assumptions",
        "origin": "billing-43",
        "assumptions": ["Amounts are in EUR, as in the last ten orders", "Shipping is not refunded"],
        "work_so_far": {"refunded": "A-4472"},
    },
    "done": {"status": "done", "origin": "billing-42", "decisions": ["refund"]},
    "done_nothing": {"status": "done", "origin": "billing-44", "none": True},
    "failed": {"status": "failed", "origin": "billing-45", "error": "the payment API refused the token", "none": True},
}


def guide_text() -> str:
    """The guide, with today's limits."""
    from parkbot.core import models
    from parkbot.core.config import Limits
    from parkbot.core.identity import MAX_NAME_LENGTH

    limits = Limits()
    one_blocking = (
        "at most one blocking question per origin at a time"
        if limits.one_blocking_question_per_origin
        else "any number of them blocking"
    )

    def shown(name: str) -> str:
        return json.dumps(EXAMPLES[name], ensure_ascii=False)

    return f"""\
parkbot: ask instead of guessing
================================

When you are unsure, first decide which kind of uncertainty it is.

* Reversible and low-impact (a default that is easy to change later, a name, a format, an
  order): PROCEED. Finish the work and state every such assumption in a done_with_assumptions
  result; the owner reviews them afterwards and may override one.
* Irreversible, high-impact or ambiguous (money, deleting or migrating data, anything sent to a
  customer, a public interface, a request with two reasonable readings): STOP and ASK. Return a
  needs_input result with concrete options, the one you would pick as guess, and work_so_far:
  everything a fresh session needs to continue. Do not guess.

The result: one JSON object, validated strictly
-----------------------------------------------
Asking (the decision's id is <origin>-decision-<key>; filing it again updates the same item):
  {shown("needs_input")}
Finished under assumptions (a non-blocking review item):
  {shown("done_with_assumptions")}
Finished: say which decisions you raised, or say explicitly that you raised none:
  {shown("done")}
  {shown("done_nothing")}
Failed (with the same inventory):
  {shown("failed")}

Rules (`parkbot schema` prints the JSON Schema; everything else is an error that names the field):
* origin, key and option ids: letters, digits, '.', '_' and '-', starting and ending with a letter
  or digit, at most {MAX_NAME_LENGTH} characters. origin is your task's stable id, key names the
  question within it.
* options: at most {models.MAX_OPTIONS}, each "id: label" (label at most {models.MAX_LABEL} characters) or
  {{"id": ..., "label": ...}}; ids unique; guess must be one of them. Without options, or with
  "allow_free_text": true, the owner may answer in words.
* question at most {models.MAX_QUESTION} characters, title at most {models.MAX_TITLE}; work_so_far any JSON up to
  {models.MAX_WORK_SO_FAR_BYTES} bytes; at most {models.MAX_DEPENDENTS} dependents ("#12" for a pull request,
  "branch:<name>" for a branch); at most {models.MAX_ASSUMPTIONS} assumptions of at most {models.MAX_TEXT} characters.
* Booleans are true or false, never "no", 1 or "true". Unknown fields are errors.
* Budgets (the repository's .github/parkbot.yml may change them): at most {limits.open_per_origin} open
  questions per origin and {limits.open_per_run} per run, {one_blocking}. Past a budget
  park refuses (exit 3): finish what you can, and say what is left in work_so_far.

Filing, waiting, resuming
-------------------------
  parkbot park result.json --json        # or: ... | parkbot park - --json ; prints {{"id": ..., "action": ...}}
  parkbot wait ID --timeout 10m          # exit 0 with the answer, 1 if none came: then END your session
  parkbot resume ID --json               # later, in a fresh session: the answer and your work_so_far
Exit codes: 0 done, 1 blocked or not answered yet, 2 invalid input (fix what the message names),
3 refused by a rule, 4 backend failure (safe to run again). With --json every outcome is one JSON
object, errors included: {{"error": ..., "message": ..., "exit_code": ...}}.
An answer with "assumption": true is an explicit default: treat it as an assumption, not a decision.
Where a planner is configured, your question may be answered by it from cited sources (answer kind
"planner"); the owner may still override it, and a corrected answer replaces the first on resume.
Over MCP (`parkbot mcp`) the same verbs are tools: park, wait, resume, show, list, gate, schema.
Supervisors pick up work that can continue with `parkbot list --answered-since 1h --json`.
"""


def planner_guide_text() -> str:
    """The guide for the planner agent: what it may and may not do (the rules ``parkbot cite`` enforces)."""
    from parkbot.core.config import Planner
    from parkbot.core.models import MAX_CITED_LINES
    from parkbot.core.planner import MAX_SOURCES

    window = int(Planner(by="x").window // 60)
    return f"""\
parkbot: the planner answers from cited sources, or passes
==========================================================

You are the planner: the first to see each question an agent parks. You hold the project's context,
but you may answer ONLY from sources that parkbot can check. Nothing you answer is a guess.

Your loop
---------
  parkbot list --awaiting planner --json                      # what waits for you (MCP: list, awaiting=planner)
  parkbot show ID --json                                      # the question and its options
  parkbot cite ID --answer OPTION --source docs/refunds.md#L10-L14 [--source <decision-id>]...
  parkbot pass ID --reason "the docs do not cover partial refunds"
A question waits for you for planner.window (default {window} minutes) after it is filed; then, or as
soon as you cite or pass, its owner is assigned and notified. On GitHub you answer with comments on
the decision issue, from the planner's own login only: `/cite <option> <source>...` or `/pass [why]`.
Over MCP the tools are cite and pass.

What you may cite (every source is checked before anything is recorded)
------------------------------------------------------------------------
* A file that matches planner.sources, with its line range: path#L10 or path#L10-L14 (at most
  {MAX_CITED_LINES} lines). It is read at the default branch's current commit; the answer keeps that commit
  and the lines verbatim, so cite the lines that actually say the answer.
* A decision a person answered (its id). Not one answered by you, by an explicit default, or by a
  precedent: those are not a person's decision.
* At most {MAX_SOURCES} sources per answer; at least one.

What you may not do
-------------------
* Answer without a source, from a file outside planner.sources, or from lines that are not there:
  refused (exit 3), the message names the source.
* Answer a question you filed, or one your own pull request waits for: the identity that asked never
  answers. Questions whose origin matches planner.never, and blocking questions where a run may have
  only one, go straight to a person: refused.
* Answer after you passed or after the window: the question is with its owner then.
* Change your answer: a different answer is refused. Only the owner changes it (`/override <option>`).
When the sources do not clearly answer the question, pass: a wrong citation costs more than a wait.

What happens to your answer
---------------------------
It is shown to the owner as a review item. With planner.opens_gate (the default) it unblocks the
dependents at once; otherwise it waits for the owner's `/accept`. The owner accepts it or overrides
it; the report shows how often owners override you: a high rate means your sources are wrong.
Exit codes: 0 done, 2 invalid input, 3 refused by a rule, 4 backend failure (safe to run again).
"""

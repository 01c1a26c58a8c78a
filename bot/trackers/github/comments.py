"""Bot comments with hidden markers: the recorded answer, pointers on dependents, replies to commands,
and the overflow comments of a ``work_so_far`` too long for the issue body.

Every bot comment carries a hidden marker (``bot.trackers.github.render``) and is edited, never posted twice; a marker
counts only in a comment of the bot's own (a marker typed by anyone else is ignored).
"""

from __future__ import annotations

from typing import Any

from github import GithubException

from bot.core.models import Answer, Decision
from bot.trackers.github.base import TrackerBase, _login, _raw
from bot.trackers.github.render import (
    parse_answer_comment,
    read_marker,
    render_answer_comment,
    render_pointer_comment,
    render_reply,
    work_chunk_key,
)


class CommentsMixin(TrackerBase):
    """Comments with hidden markers (see the module docstring)."""

    # -- comments with markers ----------------------------------------------------------------

    def _trusted(self, comment: dict[str, Any], issue_author: str | None) -> bool:
        """Only the bot's own comments count (a marker typed by anyone else is ignored)."""
        user = comment.get("user") or {}
        login = (user.get("login") or "").casefold()
        if user.get("type") == "Bot" or login in self._bot_logins:
            return True
        return bool(issue_author) and login == (issue_author or "").casefold()

    def _post_comment(self, number: int, body: str) -> dict[str, Any]:
        raw = self._unit(f"comment on #{number}", lambda _: _raw(self._issue_obj(number).create_comment(body)))
        self._comments.setdefault(number, []).append(raw)
        return raw

    def _upsert_comment(
        self, number: int, kind: str, key: str, body: str, *, author: str | None = None, refresh: bool = True
    ) -> dict[str, Any]:
        """One bot comment per (kind, key) on an issue: edited when it differs, never posted twice."""

        def unit(attempt: int) -> dict[str, Any]:
            comments = self._comments_of(number, refresh=refresh or attempt > 1)
            for comment in comments:
                found = read_marker(comment.get("body"))
                if found and found.kind == kind and found.key == key and self._trusted(comment, author):
                    if comment.get("body") == body:
                        return comment
                    self._issue_obj(number).get_comment(int(comment["id"])).edit(body)  # lazy: one PATCH
                    comment["body"] = body
                    return comment
            raw = _raw(self._issue_obj(number).create_comment(body))
            self._comments.setdefault(number, []).append(raw)
            return raw

        return self._unit(f"write the {kind} comment on #{number}", unit)

    def reply(self, issue_number: int, key: str, text: str) -> dict[str, Any]:
        """Reply to a command comment (``key`` = its id): one reply per command, edited on re-runs."""
        found = next((f for f in self._issues.values() if f.number == issue_number), None)
        author = _login(found.raw.get("user")) if found else None
        return self._upsert_comment(issue_number, "reply", key, render_reply(key, text), author=author)

    def comment_url(self, issue_number: int, comment_id: int | str) -> str:
        found = next((f for f in self._issues.values() if f.number == issue_number), None)
        base = (found.raw.get("html_url") if found else None) or self._html(f"issues/{issue_number}")
        return f"{base}#issuecomment-{comment_id}"

    def _sync_overflow(self, number: int, bodies: tuple[str, ...]) -> None:
        """Make the overflow comments of an issue exactly ``bodies`` (matched by their marker keys)."""
        wanted = {work_chunk_key(b): b for b in bodies}
        existing: dict[str | None, dict[str, Any]] = {}
        for comment in self._comments_of(number, refresh=True):
            key = work_chunk_key(comment.get("body"))
            if key is not None and self._trusted(comment, None):
                existing[key] = comment
        for key, body in wanted.items():
            if key not in existing:
                self._post_comment(number, body)
        for key, comment in existing.items():
            if key not in wanted:  # the work of an earlier filing
                self._delete_comment(number, int(comment["id"]))

    def _delete_comment(self, number: int, comment_id: int) -> None:
        def delete(_: int) -> None:
            try:
                self._issue_obj(number).get_comment(comment_id).delete()
            except GithubException as exc:
                if exc.status != 404:  # 404: already gone (a retried delete)
                    raise

        self._unit(f"delete an outdated comment on #{number}", delete)

    # -- resolution ---------------------------------------------------------------------------

    def _answer_comment(self, decision: Decision) -> tuple[dict[str, Any], Answer] | None:
        found = self._found(decision)
        author = _login(found.raw.get("user"))
        for comment in self._comments_of(found.number):
            answer = parse_answer_comment(comment.get("body"), decision.id)
            if answer is not None and self._trusted(comment, author):
                return comment, answer
        return None

    def recorded_answer(self, decision: Decision) -> Answer | None:
        if decision.answer is not None and decision.state == "resolved":
            return decision.answer
        hit = self._answer_comment(decision)
        return hit[1] if hit else None

    def record_answer(self, decision: Decision, answer: Answer) -> None:
        found = self._found(decision)
        hit = self._answer_comment(decision)
        if hit is not None:
            return  # (a) already done; the lifecycle refuses a different answer before we get here
        self._upsert_comment(
            found.number,
            "answer",
            decision.id,
            render_answer_comment(decision, answer),
            author=_login(found.raw.get("user")),
            refresh=False,
        )

    def point_dependents(self, decision: Decision, answer: Answer) -> None:
        found = self._found(decision)
        hit = self._answer_comment(decision)
        url = hit[0].get("html_url") if hit else found.raw.get("html_url")
        body = render_pointer_comment(decision, answer, issue_number=found.number, url=url)
        for number in self._pr_numbers(decision):
            self._upsert_comment(number, "pointer", decision.id, body)
            self._comments.pop(number, None)  # PR comments are re-read by every run

"""Bot comments with hidden markers: the recorded answer, pointers on dependents, replies to commands,
notices, and the overflow comments of a ``work_so_far`` too long for the issue body.

Every bot comment carries a hidden marker (``bot.trackers.github.render``) and is edited, never posted
twice. A marker counts only in a comment parkbot's own login wrote (:attr:`own_login`): a marker typed
or posted by anyone else, another bot included, is ignored. A record whose text someone else changed
(anyone with write access can edit any comment) is read as parkbot last wrote it, from the comment's
edit history, and written back with parkbot's next write of it.
"""

from __future__ import annotations

from typing import Any

from github import GithubException

from bot.core.models import Answer, Decision
from bot.core.tracker import CommentRecord
from bot.trackers.github.base import TrackerBase, _raw
from bot.trackers.github.render import (
    parse_answer_comment,
    read_marker,
    render_answer_comment,
    render_pointer_comment,
    render_reply,
    work_chunk_key,
)
from bot.trackers.github.trust import author_of, last_writer, own_version, same_login, written_by


class CommentsMixin(TrackerBase):
    """Comments with hidden markers (see the module docstring)."""

    # -- comments with markers ----------------------------------------------------------------

    def _by_parkbot(self, comment: dict[str, Any]) -> bool:
        """Posted by parkbot's own login (the comment a re-run edits; its text may have been changed since)."""
        return same_login(author_of(comment), self.own_login)

    def _trusted(self, comment: dict[str, Any]) -> bool:
        """parkbot's own record: posted by its own login and not changed by anyone else since."""
        return self._by_parkbot(comment) and written_by(comment, self.own_login)

    def _own_text(self, comment: dict[str, Any]) -> str | None:
        """The text of a comment of parkbot's as parkbot last wrote it (from the edit history if needed)."""
        if not self._by_parkbot(comment):
            return None
        if written_by(comment, self.own_login):
            return str(comment.get("body") or "")
        node_id = comment.get("node_id")
        return own_version(self._history(node_id), self.own_login) if node_id else None

    def _post_comment(self, number: int, body: str) -> dict[str, Any]:
        raw = self._unit(f"comment on #{number}", lambda _: _raw(self._issue_obj(number).create_comment(body)))
        self._comments.setdefault(number, []).append(raw)
        return raw

    def _upsert_comment(self, number: int, kind: str, key: str, body: str, *, refresh: bool = True) -> dict[str, Any]:
        """One bot comment per (kind, key) on an issue: edited when it differs, never posted twice.

        The comment found is one parkbot posted; if someone else changed it, this write puts
        parkbot's text back.
        """

        def unit(attempt: int) -> dict[str, Any]:
            comments = self._comments_of(number, refresh=refresh or attempt > 1)
            for comment in comments:
                found = read_marker(comment.get("body"))
                if found and found.kind == kind and found.key == key and self._by_parkbot(comment):
                    if comment.get("body") == body and self._trusted(comment):
                        return comment
                    self._issue_obj(number).get_comment(int(comment["id"])).edit(body)  # lazy: one PATCH
                    comment["body"] = body
                    comment["editor"] = {"login": self.token_login()}
                    return comment
            raw = _raw(self._issue_obj(number).create_comment(body))
            self._comments.setdefault(number, []).append(raw)
            return raw

        return self._unit(f"write the {kind} comment on #{number}", unit)

    def writes_as_itself(self) -> bool:
        """Whether this run's token is parkbot's own identity (its records then count as parkbot's)."""
        return self.token_login().casefold() == self.own_login.casefold()

    def post_command(self, decision: Decision, text: str) -> str:
        """Post a comment command on the decision issue as the token's owner (1 request); its URL."""
        found = self._found(decision)
        raw = self._post_comment(found.number, text)
        return str(raw.get("html_url") or self.comment_url(found.number, raw["id"]))

    def reply(self, issue_number: int, key: str, text: str) -> dict[str, Any]:
        """Reply to a command comment (``key`` = its id): one reply per command, edited on re-runs."""
        return self._upsert_comment(issue_number, "reply", key, render_reply(key, text))

    def comment_url(self, issue_number: int, comment_id: int | str) -> str:
        found = next((f for f in self._issues.values() if f.number == issue_number), None)
        base = (found.raw.get("html_url") if found else None) or self._html(f"issues/{issue_number}")
        return f"{base}#issuecomment-{comment_id}"

    def comment_record(self, issue_number: int, comment_id: int | str) -> CommentRecord | None:
        """Who wrote comment ``comment_id`` on ``issue_number``, who last changed it, and what it says now.

        Read with the issue (``decision_at`` reads its comments in the same request); a comment not
        among them (posted since) is looked for once more. None when it is not there (deleted).
        """
        try:
            wanted = int(comment_id)
        except ValueError:
            return None
        for refresh in (False, True):
            for comment in self._comments_of(issue_number, refresh=refresh):
                if int(comment["id"]) == wanted:
                    author = author_of(comment) or "a deleted account"
                    writer = last_writer(comment)
                    editor = None if same_login(writer, author) else (writer or "a deleted account")
                    kind = (comment.get("user") or {}).get("type")
                    return CommentRecord(author, str(comment.get("body") or ""), editor, author_bot=kind == "Bot")
        return None

    def _sync_overflow(self, number: int, bodies: tuple[str, ...]) -> None:
        """Make the overflow comments of an issue exactly ``bodies`` (matched by their marker keys)."""
        wanted = {work_chunk_key(b): b for b in bodies}
        existing: dict[str | None, dict[str, Any]] = {}
        for comment in self._comments_of(number, refresh=True):
            key = work_chunk_key(comment.get("body"))
            if key is not None and self._by_parkbot(comment):
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
        """parkbot's answer record for ``decision`` and the answer it holds as parkbot wrote it.

        A record posted by anyone else (another bot included) is not parkbot's and carries nothing; one
        parkbot posted but someone else changed is read from its edit history (its last version by
        parkbot), and :meth:`record_answer` writes that version back.
        """
        found = self._found(decision)
        for comment in self._comments_of(found.number):
            if not self._by_parkbot(comment):
                continue  # a marker anyone else posted (another bot included) carries nothing
            text = self._own_text(comment)
            answer = parse_answer_comment(text, decision.id) if text is not None else None
            if answer is not None:
                return {**comment, "own_body": text}, answer
        return None

    def recorded_answer(self, decision: Decision) -> Answer | None:
        if decision.answer is not None and decision.state == "resolved":
            return decision.answer
        hit = self._answer_comment(decision)
        return hit[1] if hit else None

    def record_answer(self, decision: Decision, answer: Answer) -> None:
        found = self._found(decision)
        if self._restore_answer_record(decision):
            return  # (a) already done; the lifecycle refuses a different answer before we get here
        self._upsert_comment(
            found.number,
            "answer",
            decision.id,
            render_answer_comment(decision, answer),
            refresh=False,
        )
        # Step (b) has never run for an answer recorded only now: no pointer can exist yet, so this
        # run posts its pointers without first listing each dependent's comments.
        self._answered_now.add(decision.id)

    def _restore_answer_record(self, decision: Decision) -> bool:
        """Whether parkbot's answer record exists; if someone else changed it, parkbot's text goes back."""
        hit = self._answer_comment(decision)
        if hit is None:
            return False
        comment, _ = hit
        if comment.get("body") != comment.get("own_body"):
            self._restore_comment(self._found(decision).number, comment)
        return True

    def _restore_comment(self, number: int, comment: dict[str, Any]) -> None:
        """Write parkbot's own text back into a comment of its that someone else changed."""
        text = str(comment["own_body"])

        def restore(_: int) -> None:
            self._issue_obj(number).get_comment(int(comment["id"])).edit(text)  # lazy: one PATCH

        self._unit(f"restore parkbot's comment {comment['id']} on #{number}", restore)
        for cached in self._comments.get(number, []):
            if int(cached["id"]) == int(comment["id"]):
                cached.update(body=text, editor={"login": self.token_login()})

    def point_dependents(self, decision: Decision, answer: Answer) -> None:
        found = self._found(decision)
        hit = self._answer_comment(decision)
        url = hit[0].get("html_url") if hit else found.raw.get("html_url")
        body = render_pointer_comment(decision, answer, issue_number=found.number, url=url)
        first_time = decision.id in self._answered_now
        for number in self._pr_numbers(decision):
            if first_time:
                self._comments.setdefault(number, [])  # none of ours yet; a retried post re-reads them
                self._upsert_comment(number, "pointer", decision.id, body, refresh=False)
            else:
                self._upsert_comment(number, "pointer", decision.id, body)
            self._comments.pop(number, None)  # PR comments are re-read by every run

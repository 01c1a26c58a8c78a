"""Bot comments with hidden markers: answer records, pointers on dependents, replies to commands, notices,
and the overflow comments of a ``work_so_far`` too long for the issue body; and whose words a comment carries.

Every bot comment carries a hidden marker (``parkbot.trackers.github.render``) and is edited, never posted
twice. A marker counts only in a comment parkbot's own login wrote (:attr:`IssueStore.own_login`): a
marker typed or posted by anyone else, another bot included, is ignored. A record whose text someone
else changed (anyone with write access can edit any comment) is read as parkbot last wrote it, from the
comment's edit history (:mod:`parkbot.trackers.github.trust`), and written back with parkbot's next write.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime
from typing import TYPE_CHECKING, Any

from github import GithubException

from parkbot.core.models import Answer
from parkbot.core.tracker import CommentRecord
from parkbot.core.untaken import CommentFacts, may_be_command
from parkbot.trackers.github.access import is_bot_login
from parkbot.trackers.github.render import parse_answer_comment, read_marker, render_reply, work_chunk_key
from parkbot.trackers.github.store import raw_json
from parkbot.trackers.github.trust import author_of, is_parkbot, last_writer, own_version, same_login, written_by


def _created_at(value: Any) -> datetime | None:
    """A comment's ``created_at`` (ISO 8601, ``Z``); None when GitHub gave none that parses."""
    if not isinstance(value, str):
        return None
    try:
        return datetime.fromisoformat(value)  # Python 3.11 reads the ``Z``
    except ValueError:
        return None


if TYPE_CHECKING:
    from parkbot.trackers.github.store import IssueStore


class Comments:
    """The comments of issues and pull requests, by number (see the module docstring)."""

    def __init__(self, store: IssueStore) -> None:
        self._store = store

    # -- whose words --------------------------------------------------------------------------

    def by_parkbot(self, comment: dict[str, Any]) -> bool:
        """Posted by parkbot's own login (the comment a re-run edits; its text may have been changed since)."""
        return is_parkbot(author_of(comment), self._store.trusted_logins)

    def trusted(self, comment: dict[str, Any]) -> bool:
        """parkbot's own record: posted by its own login and not changed by anyone else since."""
        return self.by_parkbot(comment) and any(written_by(comment, login) for login in self._store.trusted_logins)

    def own_text(self, comment: dict[str, Any]) -> str | None:
        """The text of a comment of parkbot's as parkbot last wrote it (from the edit history if needed)."""
        if not self.by_parkbot(comment):
            return None
        if self.trusted(comment):
            return str(comment.get("body") or "")
        node_id = comment.get("node_id")
        if not node_id:
            return None
        history = self._store.histories.of(node_id)
        return next(
            (text for login in self._store.trusted_logins if (text := own_version(history, login)) is not None), None
        )

    # -- writing ------------------------------------------------------------------------------

    def post(self, number: int, body: str) -> dict[str, Any]:
        """Post a new comment on ``number`` (1 request)."""
        store = self._store
        raw = store.unit(f"comment on #{number}", lambda _: raw_json(store.issue(number).create_comment(body)))
        store.comments.add(number, raw)
        return raw

    def upsert(self, number: int, kind: str, key: str, body: str, *, refresh: bool = True) -> dict[str, Any]:
        """One bot comment per (kind, key) on an issue: edited when it differs, never posted twice.

        The comment found is one parkbot posted; if someone else changed it, this write puts
        parkbot's text back.
        """
        store = self._store

        def unit(attempt: int) -> dict[str, Any]:
            comments = store.comments.of(number, refresh=refresh or attempt > 1)
            for comment in comments:
                found = read_marker(comment.get("body"))
                if found and found.kind == kind and found.key == key and self.by_parkbot(comment):
                    if comment.get("body") == body and self.trusted(comment):
                        return comment
                    store.issue(number).get_comment(int(comment["id"])).edit(body)  # lazy: one PATCH
                    comment["body"] = body
                    comment["editor"] = {"login": store.token_login()}
                    return comment
            raw = raw_json(store.issue(number).create_comment(body))
            store.comments.add(number, raw)
            return raw

        return store.unit(f"write the {kind} comment on #{number}", unit)

    def overflow(self, number: int) -> list[str]:
        """The texts of parkbot's comments on ``number`` as parkbot last wrote them, for the overflow chunks."""
        texts = (self.own_text(comment) for comment in self._store.comments.of(number))
        return [text for text in texts if text is not None]

    def sync_overflow(self, number: int, bodies: tuple[str, ...]) -> None:
        """Make the overflow comments of an issue exactly ``bodies`` (matched by their marker keys).

        A chunk someone else changed gets parkbot's text back (its key names the text: a digest and an index).
        """
        wanted = {work_chunk_key(b): b for b in bodies}
        existing: dict[str | None, dict[str, Any]] = {}
        for comment in self._store.comments.of(number, refresh=True):
            key = work_chunk_key(self.own_text(comment))
            if key is not None:
                existing[key] = comment
        for key, body in wanted.items():
            if key not in existing:
                self.post(number, body)
            elif existing[key].get("body") != body:  # the same text saved again: GitHub records no edit of it
                self._restore(number, {**existing[key], "own_body": body})
        for key, comment in existing.items():
            if key not in wanted:  # the work of an earlier filing
                self._delete(number, int(comment["id"]))

    def _delete(self, number: int, comment_id: int) -> None:
        store = self._store

        def delete(_: int) -> None:
            try:
                store.issue(number).get_comment(comment_id).delete()
            except GithubException as exc:
                if exc.status != 404:  # 404: already gone (a retried delete)
                    raise

        store.unit(f"delete an outdated comment on #{number}", delete)

    # -- replies to commands ------------------------------------------------------------------

    def reply(self, issue_number: int, key: str, text: str) -> dict[str, Any]:
        """Reply to a command comment (``key`` = its id): one reply per command, edited on re-runs."""
        return self.upsert(issue_number, "reply", key, render_reply(key, text))

    def comment_url(self, issue_number: int, comment_id: int | str) -> str:
        found = self._store.issues.known_issue(issue_number)
        base = (found.raw.get("html_url") if found else None) or self._store.web_url(f"issues/{issue_number}")
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
            comments = self._store.comments.of(issue_number, refresh=refresh)
            for comment in comments:
                if int(comment["id"]) == wanted:
                    author = author_of(comment) or "a deleted account"
                    writer = last_writer(comment)
                    editor = None if same_login(writer, author) else (writer or "a deleted account")
                    kind = (comment.get("user") or {}).get("type")
                    return CommentRecord(
                        author,
                        str(comment.get("body") or ""),
                        editor,
                        author_bot=kind == "Bot",
                        created_at=_created_at(comment.get("created_at")),
                        taken_up=self._replied_since(comments, comment),
                    )
        return None

    def command_facts(self, issue_number: int, reacted: Callable[[int], bool]) -> list[CommentFacts]:
        """The comments of ``issue_number`` as facts for the reconcile (their read is the run's cached one).

        ``reacted(comment_id)`` (a request) is asked only for a comment that could be an untaken command; a
        deleted author reads as a bot, so nobody's command is taken up for them.
        """
        out: list[CommentFacts] = []
        for comment in self._store.comments.of(issue_number):
            login = author_of(comment)
            body = str(comment.get("body") or "")
            bot = login is None or is_bot_login(login)  # a Bot's login reads as ``name[bot]`` (actor_login)
            cid = int(comment["id"])
            candidate = may_be_command(bot, body)
            out.append(CommentFacts(cid, login or "", bot, body, parkbot_reacted=candidate and reacted(cid)))
        return out

    def _replied_since(self, comments: list[dict[str, Any]], command: dict[str, Any]) -> bool:
        """Whether parkbot's own reply to ``command`` was written after the command's last edit.

        The reply is keyed by the command's id and counts only as parkbot wrote it. Strictly after,
        by GitHub's clock: an edit in the same second as the reply is taken up again, which is safe.
        A reply is evidence a reaction is not: GitHub keeps a repeated reaction's first time, so a
        reaction cannot tell an edited command from the one it was given for.
        """
        said = _created_at(command.get("last_edited_at") or command.get("created_at"))
        if said is None:
            return False
        key = str(command["id"])
        for comment in comments:
            found = read_marker(comment.get("body"))
            if found is None or found.kind != "reply" or found.key != key or not self.trusted(comment):
                continue
            written = _created_at(comment.get("last_edited_at") or comment.get("created_at"))
            if written is not None and written > said:
                return True
        return False

    # -- answer records -----------------------------------------------------------------------

    def answer_record(self, number: int, decision_id: str) -> tuple[dict[str, Any], Answer] | None:
        """parkbot's answer record for the decision on issue ``number``, and the answer as parkbot wrote it.

        A record posted by anyone else (another bot included) is not parkbot's and carries nothing; one
        parkbot posted but someone else changed is read from its edit history (its last version by
        parkbot), and :meth:`restore_answer_record` writes that version back.
        """
        for comment in self._store.comments.of(number):
            if not self.by_parkbot(comment):
                continue  # a marker anyone else posted (another bot included) carries nothing
            text = self.own_text(comment)
            answer = parse_answer_comment(text, decision_id) if text is not None else None
            if answer is not None:
                return {**comment, "own_body": text}, answer
        return None

    def restore_answer_record(self, number: int, decision_id: str) -> bool:
        """Whether parkbot's answer record exists; if someone else changed it, parkbot's text goes back."""
        hit = self.answer_record(number, decision_id)
        if hit is None:
            return False
        comment, _ = hit
        if comment.get("body") != comment.get("own_body"):
            self._restore(number, comment)
        return True

    def _restore(self, number: int, comment: dict[str, Any]) -> None:
        """Write parkbot's own text back into a comment of its that someone else changed."""
        store = self._store
        text = str(comment["own_body"])

        def restore(_: int) -> None:
            store.issue(number).get_comment(int(comment["id"])).edit(text)  # lazy: one PATCH

        store.unit(f"restore parkbot's comment {comment['id']} on #{number}", restore)
        for cached in store.comments.cached(number):
            if int(cached["id"]) == int(comment["id"]):
                cached.update(body=text, editor={"login": store.token_login()})

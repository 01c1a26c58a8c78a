"""The GraphQL documents the GitHub adapter sends. Pure text, no I/O.

Why GraphQL for reading decisions: only GraphQL says who last edited an issue body or a comment
(``lastEditedAt``, ``editor``) and keeps every earlier version (``userContentEdits``), which is what
lets parkbot trust its own records only as far as nobody else changed them. One query reads a
decision issue, its comments, who wrote and edited each, and parkbot's own login (``viewer``): the
same request budget as the REST listing it replaces.

Every document here is validated against GitHub's published schema by the test suite (the fake
GitHub executes them with graphql-core against ``tests/openapi/github-schema.graphql``; see
``tests/openapi/regenerate_graphql.py``, which trims that schema to what these documents use).

GraphQL names a GitHub App's bot by its slug (``author { login }`` is ``parkbot`` with
``__typename: "Bot"``) where REST says ``parkbot[bot]``; :func:`parkbot.trackers.github.trust.actor_login`
normalizes. Database ids are read as ``fullDatabaseId`` (a ``BigInt``, sent as a string): comment
ids no longer fit GraphQL's 32-bit ``Int``.
"""

from __future__ import annotations

#: Comments read per page (GraphQL's maximum).
PAGE = 100
#: The most issues GraphQL's ``nodes(ids:)`` reads at once (more are read one by one).
NODE_IDS = 100
#: Versions of an edit history read per page when a record has to be recovered (newest first).
HISTORY = 50

_ACTOR = "fragment ParkbotActor on Actor { __typename login }"
_COMMENT = """fragment ParkbotComment on IssueComment {
  id fullDatabaseId url body createdAt lastEditedAt
  author { ...ParkbotActor } editor { ...ParkbotActor }
}"""
_ISSUE = """fragment ParkbotIssue on Issue {
  id fullDatabaseId number title body url state createdAt lastEditedAt
  author { ...ParkbotActor } editor { ...ParkbotActor }
  labels(first: 100) { nodes { name } }
  assignees(first: 10) { nodes { login } }
}"""
_COMMENTS = """fragment ParkbotComments on Issue {
  comments(first: 100) { pageInfo { hasNextPage endCursor } nodes { ...ParkbotComment } }
}"""
_EDITS = """fragment ParkbotEdits on UserContentEditConnection {
  pageInfo { hasNextPage endCursor }
  nodes { editedAt deletedAt diff editor { ...ParkbotActor } }
}"""


def _document(body: str, *fragments: str) -> str:
    return "\n".join([body.strip(), *fragments]) + "\n"


#: Decision issues carrying every label in ``$labels`` (oldest first), optionally with their comments
#: and the numbers of the pull requests carrying those labels too (the first hundred: beyond, they are
#: listed again, every page, when needed).
ISSUES_BY_LABEL = _document(
    """
query ParkbotIssuesByLabel(
  $owner: String!, $name: String!, $labels: [String!], $states: [IssueState!], $first: Int!, $after: String,
  $withComments: Boolean!, $withPulls: Boolean!
) {
  viewer { login }
  repository(owner: $owner, name: $name) {
    issues(
      labels: $labels, states: $states, first: $first, after: $after, orderBy: {field: CREATED_AT, direction: ASC}
    ) {
      pageInfo { hasNextPage endCursor }
      nodes { ...ParkbotIssue ...ParkbotComments @include(if: $withComments) }
    }
    pullRequests(labels: $labels, first: 100) @include(if: $withPulls) { pageInfo { hasNextPage } nodes { number } }
  }
}
""",
    _ACTOR,
    _COMMENT,
    _ISSUE,
    _COMMENTS,
)

#: One issue (or pull request: then only ``__typename``) by number, with its comments, and the open
#: dashboard issues: an event that reads one decision this way patches the dashboard with no lookup of its own.
ISSUE_BY_NUMBER = _document(
    """
query ParkbotIssue($owner: String!, $name: String!, $number: Int!) {
  viewer { login }
  repository(owner: $owner, name: $name) {
    issueOrPullRequest(number: $number) { __typename ... on Issue { ...ParkbotIssue ...ParkbotComments } }
    dashboards: issues(
      labels: ["parkbot:dashboard"], states: [OPEN], first: 5, orderBy: {field: CREATED_AT, direction: ASC}
    ) { nodes { id number title body author { ...ParkbotActor } } }
  }
}
""",
    _ACTOR,
    _COMMENT,
    _ISSUE,
    _COMMENTS,
)

#: One page of the comments of an issue or a pull request.
COMMENTS_PAGE = _document(
    """
query ParkbotComments($owner: String!, $name: String!, $number: Int!, $after: String) {
  viewer { login }
  repository(owner: $owner, name: $name) {
    issueOrPullRequest(number: $number) {
      __typename
      ... on Issue {
        comments(first: 100, after: $after) { pageInfo { hasNextPage endCursor } nodes { ...ParkbotComment } }
      }
      ... on PullRequest {
        comments(first: 100, after: $after) { pageInfo { hasNextPage endCursor } nodes { ...ParkbotComment } }
      }
    }
  }
}
""",
    _ACTOR,
    _COMMENT,
)

#: What a pull request's gate reads besides REST: its commits (for ``Blocked-by:`` trailers), one page,
#: and the decision issues found through its native dependencies (``$ids``), with their authorship.
PULL_GATE = _document(
    """
query ParkbotPullGate($owner: String!, $name: String!, $number: Int!, $after: String, $ids: [ID!]!) {
  viewer { login }
  repository(owner: $owner, name: $name) {
    pullRequest(number: $number) {
      commits(first: 100, after: $after) { pageInfo { hasNextPage endCursor } nodes { commit { oid message } } }
    }
  }
  nodes(ids: $ids) { __typename ... on Issue { ...ParkbotIssue ...ParkbotComments } }
}
""",
    _ACTOR,
    _COMMENT,
    _ISSUE,
    _COMMENTS,
)

#: One page of the edit history of an issue body or a comment, newest version first, with the text of each.
HISTORY_OF = _document(
    """
query ParkbotHistory($id: ID!, $after: String) {
  node(id: $id) {
    __typename
    ... on Issue { userContentEdits(first: 50, after: $after) { ...ParkbotEdits } }
    ... on IssueComment { userContentEdits(first: 50, after: $after) { ...ParkbotEdits } }
  }
}
""",
    _ACTOR,
    _EDITS,
)

#: Who the token belongs to (works for App installation tokens, unlike REST ``GET /user``).
VIEWER = _document("query ParkbotViewer { viewer { login } }")

#: Every document the adapter sends (the test suite validates each against GitHub's schema).
DOCUMENTS: tuple[str, ...] = (ISSUES_BY_LABEL, ISSUE_BY_NUMBER, COMMENTS_PAGE, PULL_GATE, HISTORY_OF, VIEWER)

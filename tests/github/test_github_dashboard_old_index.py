"""The dashboard's hidden index line as an earlier version wrote it into the issue body: it still reads, and the
same index is written back byte for byte (the figures in it are a typed model now; their form is not)."""

from __future__ import annotations

from parkbot.core.figures import DashboardFigures
from parkbot.trackers.github.dashboard_issue import index_block, read_index

#: The hidden line of a dashboard an earlier version wrote (one listed decision, figures of an empty month).
OLD_BLOCK = (
    "<!-- parkbot:dashboard-index eNqNUttqAjEQ/ZUyfd2FrJaC+9JvKPhkKSEmow0bJ0smUYr47524lip9UAgJczlnzszkCOs"
    "Q7eBpqw8xDdB3DSDl5JGh/ziCTWgyOm0y9DBTs5dWvbZqvuxUr+pZQQMORyQnqAqB5wV8NuCd5Oe2ax1azz5SO0hmPBAmCZjgLYq"
    "dfQ4o9vtTJHyDkwA3fltSLX4EszbkJCBUqgFDfMAkUtbf2uHGlJBrko2F8jmBzjd/mSSUVEI43YLGhBarzAdgPFyq2rgby78BzNW"
    "ym/0NANmaUMd0n3lbkFnvWU/K7gNEdElJ9jN5qmNTeOrImvERAo5hf2mHPVm83mR300j2O9Q5XonbofOGNKON5PhXw1RnXKjbwGn"
    "SW+XcmViO2YRpyeev0HcC3dfnBwQf0Fw= -->"
)


def test_an_index_line_an_earlier_version_wrote_reads_and_is_written_back_unchanged() -> None:
    index = read_index(f"# parkbot decision dashboard\n\nsome text\n{OLD_BLOCK}\n")
    assert index is not None
    assert [e.id for e in index.entries] == ["t-1-decision-k"]
    assert isinstance(index.figures, DashboardFigures)
    assert index.figures.asked == 0
    assert index_block(index) == OLD_BLOCK

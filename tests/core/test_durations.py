"""One duration type for every option that takes one, and for the configuration."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest
from click.testing import CliRunner
from pydantic import BaseModel, ValidationError

from parkbot.cli import cli
from parkbot.core.durations import Duration, DurationOrZero, moment
from parkbot.core.errors import InvalidInput

NOW = datetime(2026, 11, 30, 12, 0, tzinfo=UTC)


@pytest.mark.parametrize(
    ("text", "seconds"),
    [
        ("90s", 90),
        ("10m", 600),
        ("1m30s", 90),
        ("2h", 7200),
        ("7d", 7 * 86400),
        ("10d", 10 * 86400),
        ("2w", 14 * 86400),
        ("1.5h", 5400),
        ("500ms", 0.5),
        (" 12H ", 43200),
    ],
)
def test_accepted_forms(text: str, seconds: float) -> None:
    assert Duration.parse(text).seconds == seconds
    assert str(Duration.parse(text)) == text.strip().lower()


@pytest.mark.parametrize(
    ("text", "fix"),
    [
        ("nan", "e.g. 90s, 10m, 1m30s, 2h or 7d"),
        ("inf", "e.g. 90s"),
        ("soon", "e.g. 90s"),
        ("1m30", "e.g. 90s"),
        ("1 m", "e.g. 90s"),
        ("", "e.g. 90s"),
        ("15", "write 15s (seconds), 15m, 15h or 15d"),
        ("-5s", "counts forward; write 5s"),
        ("0s", "give a length"),
        ("0", "give a length"),
        ("99999999999w", "longer than parkbot can count"),
    ],
)
def test_refused_forms_say_what_to_type(text: str, fix: str) -> None:
    with pytest.raises(InvalidInput) as info:
        Duration.parse(text, what="--timeout")
    assert fix in info.value.message
    assert info.value.message.startswith("--timeout ")


def test_zero_where_it_means_something() -> None:
    assert Duration.parse("0s", allow_zero=True).seconds == 0


def test_from_python_values() -> None:
    assert Duration.of(timedelta(minutes=2)).seconds == 120
    assert Duration.of(45).seconds == 45
    assert Duration.of(Duration.parse("1h")).seconds == 3600
    for bad in (float("nan"), float("inf"), -1, True, None):
        with pytest.raises(InvalidInput):
            Duration.of(bad)  # type: ignore[arg-type]


def test_moments() -> None:
    assert moment("30d", NOW) == NOW - timedelta(days=30)
    assert moment("1m30s", NOW) == NOW - timedelta(seconds=90)
    assert moment("2024-05-01", NOW) == datetime(2024, 5, 1, tzinfo=UTC)
    assert moment("2024-05-01T02:00:00+02:00", NOW) == datetime(2024, 5, 1, tzinfo=UTC)
    with pytest.raises(InvalidInput, match="in the future"):
        moment("2999-01-01", NOW)
    with pytest.raises(InvalidInput, match="ISO date"):
        moment("yesterday", NOW)
    with pytest.raises(InvalidInput, match="before the year 1"):
        moment("800000w", NOW)


class _Settings(BaseModel):
    wait_timeout: Duration = Duration.parse("10m")


def test_a_setting_can_be_a_duration() -> None:
    assert _Settings.model_validate({"wait_timeout": "1m30s"}).wait_timeout.seconds == 90
    assert _Settings().model_dump(mode="json") == {"wait_timeout": "10m"}
    with pytest.raises(ValidationError, match="has no unit"):
        _Settings.model_validate({"wait_timeout": "15"})
    assert _Settings.model_json_schema()["properties"]["wait_timeout"]["type"] == "string"


@pytest.mark.parametrize(
    ("args", "fix"),
    [
        (["wait", "a-decision-b", "--timeout", "nan"], "'nan' is not a duration"),
        (["wait", "a-decision-b", "--timeout", "-5s"], "'-5s' is negative"),
        (["report", "--since", "0d"], "'0d' is zero"),
        (["list", "--answered-since", "15"], "'15' has no unit: write 15s"),
        (["list", "--answered-since", "2999-01-01"], "in the future"),
    ],
)
def test_every_option_refuses_the_same_way_with_exit_2(args: list[str], fix: str) -> None:
    result = CliRunner().invoke(cli, args)
    assert result.exit_code == 2
    assert fix in result.stderr
    assert f"Invalid value for '{next(a for a in args if a.startswith('--'))}'" in result.stderr


def test_every_option_that_takes_a_duration_uses_the_one_type() -> None:
    import click

    from parkbot.cli.params import DurationType, MomentType

    ctx = click.Context(cli)
    seen = {}
    for name in cli.list_commands(ctx):
        command = cli.get_command(ctx, name)
        assert command is not None
        for param in command.params:
            if param.name in ("timeout", "since", "answered_since"):
                seen[f"{name} {param.opts[0]}"] = type(param.type)
    assert seen == {
        "wait --timeout": DurationType,
        "report --since": MomentType,
        "list --answered-since": MomentType,
    }


class _Waits(BaseModel):
    rate_limit_wait: DurationOrZero = DurationOrZero.parse("5m")


def test_a_setting_where_zero_means_never() -> None:
    assert _Waits.model_validate({"rate_limit_wait": 0}).rate_limit_wait.seconds == 0
    assert _Waits.model_validate({"rate_limit_wait": "1m30s"}).rate_limit_wait.seconds == 90
    with pytest.raises(ValidationError, match="negative"):
        _Waits.model_validate({"rate_limit_wait": "-1s"})
    with pytest.raises(ValidationError, match="zero"):
        _Settings.model_validate({"wait_timeout": 0})

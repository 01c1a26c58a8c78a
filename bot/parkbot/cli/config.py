"""``parkbot config check``: validate a configuration before committing it, and show what it means."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import click

from parkbot.api.failure import failure_of
from parkbot.config_file import find_config, read_config_file
from parkbot.core.config import CONFIG_PATHS, Config, ConfigWarning, check_config, config_json_schema
from parkbot.core.errors import ExitCode, ParkbotError


def owner_chains(config: Config) -> list[dict[str, Any]]:
    """Each configured origin pattern (and the default) with the owners who answer its questions, nearest first."""
    rows = [
        {"pattern": pattern, "chain": [owner, *config.chain_above(owner)]}
        for pattern, owner in config.owners.origins.items()
    ]
    if config.owners.default:
        rows.append(
            {"pattern": "(default)", "chain": [config.owners.default, *config.chain_above(config.owners.default)]}
        )
    else:
        rows.append(
            {"pattern": "(default)", "chain": [], "note": "the repository owner (GitHub) / your git user.email"}
        )
    return rows


def _report(source: str | None, config: Config, warnings: list[Any]) -> tuple[dict[str, Any], str]:
    chains = owner_chains(config)
    data = {
        "file": source,
        "valid": True,
        "owners": chains,
        "warnings": [{"line": w.line, "message": w.message} for w in warnings],
    }
    width = max(len(row["pattern"]) for row in chains)
    heading = (
        f"{source}: valid"
        if source
        else f"no configuration file (looked for {' and '.join(CONFIG_PATHS)}): parkbot runs on the defaults, "
        "which are valid; `parkbot init` writes one"
    )
    lines = [heading, "who answers (nearest first; questions only move up this chain):"]
    for row in chains:
        chain = " -> ".join(row["chain"]) if row["chain"] else row.get("note", "")
        lines.append(f"  {row['pattern']:<{width}}  {chain}")
    if warnings:
        lines.append("warnings:")
        lines += [f"  {source}:{w.line}: {w.message}" for w in warnings]
    return data, "\n".join(lines)


@click.group(name="config")
def config_group() -> None:
    """Check the configuration file (.github/parkbot.yml) before you commit it.

    \b
    Example:
      parkbot config check
      parkbot config schema > parkbot-config.schema.json
    """


@config_group.command(name="check")
@click.argument("file", required=False, type=click.Path(dir_okay=False))
@click.option("--repo", default=".", show_default=True, type=click.Path(file_okay=False), help="Where to look for it.")
@click.option("--json", "as_json", is_flag=True, help="Print one JSON object on stdout, for machines.")
def check(file: str | None, repo: str, as_json: bool) -> None:
    """Validate a configuration: errors name the file and line (exit 2); show who answers each origin.

    Without FILE, checks .github/parkbot.yml (or .github/parkbot.yaml) of the repository; with neither,
    says so and exits 0 (the defaults are valid). An unknown key is named with the closest known one
    ("did you mean owners.default?"). Also warns
    about YAML 1.1 surprises: `off`, `on`, `yes` and `no` are read as text by parkbot, while some YAML
    tools read them as true/false; quote them to be clear.

    \b
    Example:
      parkbot config check                        # the repository's configuration
      parkbot config check new-parkbot.yml --json
    """
    try:
        path = Path(file) if file else find_config(repo)
        warnings: list[ConfigWarning] = []
        if path is None:
            config = Config()
        else:
            config, warnings = check_config(read_config_file(path), str(path))
    except ParkbotError as exc:
        if as_json:
            click.echo(json.dumps(failure_of(exc)))
        click.echo(f"parkbot: {exc.message}", err=True)
        sys.exit(int(exc.exit_code))
    data, text = _report(str(path) if path else None, config, warnings)
    click.echo(json.dumps(data, indent=2) if as_json else text)
    sys.exit(int(ExitCode.OK))


@config_group.command(name="schema")
def schema() -> None:
    """Print the JSON Schema of the configuration, for editors and CI checks.

    It is generated from the models `parkbot config check` validates with, and is also the file
    schema/parkbot-config.schema.json in parkbot's repository. `parkbot init` saves it as
    .github/parkbot.schema.json and points editors at it from the configuration's first line
    (`# yaml-language-server: $schema=parkbot.schema.json`). The few rules JSON Schema cannot state
    (the hierarchy has no cycle, ...) are listed in its description.

    \b
    Example:
      parkbot config schema > .github/parkbot.schema.json
    """
    click.echo(json.dumps(config_json_schema(), indent=2))


CONFIG_COMMANDS = [config_group]

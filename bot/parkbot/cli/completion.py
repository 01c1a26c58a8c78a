"""``parkbot completion SHELL``: the shell completion script, written by click (no hand-written completion)."""

from __future__ import annotations

import click

#: The variable the script sets when it asks parkbot for completions (click's convention: _<PROG>_COMPLETE).
COMPLETE_VAR = "_PARKBOT_COMPLETE"
SHELLS = ("bash", "zsh", "fish")


@click.command()
@click.argument("shell", type=click.Choice(SHELLS))
def completion(shell: str) -> None:
    """Print the shell completion script for bash, zsh or fish.

    Commands, options and choices complete as you type; the script asks parkbot itself, so it
    follows the installed version.

    \b
    Example:
      eval "$(parkbot completion bash)"        # in ~/.bashrc (bash 4.4 or newer)
      eval "$(parkbot completion zsh)"         # in ~/.zshrc
      parkbot completion fish > ~/.config/fish/completions/parkbot.fish
    """
    from click.shell_completion import get_completion_class

    from parkbot.cli import cli

    completer = get_completion_class(shell)
    if completer is None:  # pragma: no cover - click ships all three
        raise click.UsageError(f"click has no completion for {shell}")
    click.echo(completer(cli, {}, "parkbot", COMPLETE_VAR).source())

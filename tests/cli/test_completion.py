"""``parkbot completion``: the script each shell sources, and a real bash completing with it."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from parkbot.cli import cli

#: The installed console script (the completion script runs ``parkbot`` itself to ask for completions).
PARKBOT = Path(sys.executable).with_name("parkbot")


@pytest.mark.parametrize(
    ("shell", "expected"),
    [
        ("bash", "complete -o nosort -F _parkbot_completion parkbot"),
        ("zsh", "compdef _parkbot_completion parkbot"),
        ("fish", "complete --no-files --command parkbot --arguments"),
    ],
)
def test_each_shell_gets_a_script_registering_parkbots_completion(shell: str, expected: str) -> None:
    result = CliRunner().invoke(cli, ["completion", shell])
    assert result.exit_code == 0, result.output
    assert "_parkbot_completion" in result.stdout
    assert "_PARKBOT_COMPLETE=" in result.stdout
    assert expected in result.stdout


def test_an_unknown_shell_is_a_usage_error() -> None:
    result = CliRunner().invoke(cli, ["completion", "tcsh"])
    assert result.exit_code == 2
    assert "bash" in result.output


@pytest.mark.skipif(shutil.which("bash") is None or not PARKBOT.exists(), reason="needs bash and the parkbot script")
def test_bash_completes_parkbot_re_with_the_commands_starting_so(tmp_path: Path) -> None:
    script = subprocess.run([str(PARKBOT), "completion", "bash"], capture_output=True, text=True, check=True).stdout
    (tmp_path / "parkbot.bash").write_text(script)
    # What bash does on `parkbot re<TAB>`: call the registered function with the command, the word, the one before.
    session = (
        f'source "{tmp_path / "parkbot.bash"}"\n'
        "COMP_WORDS=(parkbot re); COMP_CWORD=1\n"
        '"$(complete -p parkbot | sed -E "s/.* -F ([^ ]+) .*/\\1/")" parkbot re parkbot\n'
        'printf "%s\\n" "${COMPREPLY[@]}"\n'
    )
    env = {**os.environ, "PATH": f"{PARKBOT.parent}{os.pathsep}{os.environ.get('PATH', '')}"}
    done = subprocess.run(["bash", "--norc", "--noprofile", "-c", session], capture_output=True, text=True, env=env)
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ["report", "resolve", "resume", "return"]

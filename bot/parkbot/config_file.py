"""Finding and reading a working tree's configuration: the only file access the configuration needs.

The rules for what a configuration may say live in :mod:`parkbot.core.config` (pure: text in, a
:class:`~parkbot.core.config.Config` or an error out); this module is the edge that looks the file up
from a folder to the repository's top and reads its bytes.
"""

from __future__ import annotations

from pathlib import Path

from parkbot.core.config import CONFIG_PATHS, Config, decode_config, parse_config
from parkbot.core.errors import InvalidInput


def read_config_file(path: str | Path) -> str:
    """A configuration file's text: it must exist and be UTF-8."""
    path = Path(path)
    if not path.is_file():
        raise InvalidInput(f"configuration file {path} does not exist")
    try:
        data = path.read_bytes()
    except OSError as exc:
        raise InvalidInput(f"cannot read the configuration file {path}: {exc.strerror}") from None
    return decode_config(data, str(path))


def find_config(start: str | Path) -> Path | None:
    """The configuration of the working tree containing ``start``: ``.github/parkbot.yml`` or ``.yaml``.

    Looked up from ``start`` to the repository root. Both spellings at once is an error naming both,
    rather than one silently winning.
    """
    folder = Path(start).resolve()
    for candidate_root in (folder, *folder.parents):
        found = [candidate_root / name for name in CONFIG_PATHS if (candidate_root / name).is_file()]
        if len(found) > 1:
            raise InvalidInput(
                f"both {found[0]} and {found[1]} exist; parkbot reads one configuration: keep one of them"
            )
        if found:
            return found[0]
        if (candidate_root / ".git").exists():
            return None
    return None


def load_config(path: str | Path | None) -> Config:
    """Read a config file from disk; a missing default file means defaults, a missing named file is an error."""
    if path is None:
        return Config()
    return parse_config(read_config_file(path), str(path))

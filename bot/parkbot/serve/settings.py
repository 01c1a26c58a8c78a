"""The settings of ``parkbot serve`` that only the server reads, from the environment.

The App's own settings (its id and private key, the API URL) are read by the GitHub adapter
(:func:`parkbot.trackers.github.app_credentials`), which ``parkbot doctor`` uses too. Each is checked
before the server listens: a missing or malformed one is :class:`InvalidInput` (exit 2) naming it and
saying what to give.
"""

from __future__ import annotations

from collections.abc import Mapping

from parkbot.core.errors import InvalidInput


def webhook_secret(env: Mapping[str, str]) -> bytes:
    """``PARKBOT_WEBHOOK_SECRET``: the secret GitHub signs every delivery with."""
    secret = env.get("PARKBOT_WEBHOOK_SECRET") or ""
    if not secret.strip():
        raise InvalidInput(
            "PARKBOT_WEBHOOK_SECRET is not set: give the App's webhook secret (deliveries are refused without it)"
        )
    return secret.encode("utf-8")

"""The GitHub App's settings, read from the environment: ``parkbot serve`` and ``parkbot doctor`` (App mode).

Each is checked before it is used (before the server listens): a missing or malformed one is
:class:`InvalidInput` (exit 2) naming it and saying what to give. The private key is never shown.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path

from parkbot.core.errors import InvalidInput
from parkbot.trackers.github.app import AppCredentials

DEFAULT_API_URL = "https://api.github.com"


def api_url(env: Mapping[str, str]) -> str:
    """``GITHUB_API_URL`` (GitHub Enterprise Server: ``https://HOST/api/v3``), default api.github.com."""
    url = (env.get("GITHUB_API_URL") or DEFAULT_API_URL).strip().rstrip("/")
    if not url.startswith(("https://", "http://")):
        raise InvalidInput(f"GITHUB_API_URL must be an http(s) URL, got {url!r}")
    return url


def app_credentials(env: Mapping[str, str]) -> AppCredentials:
    """``PARKBOT_APP_ID`` and the App's private key (``PARKBOT_PRIVATE_KEY`` or ``PARKBOT_PRIVATE_KEY_FILE``)."""
    raw_id = (env.get("PARKBOT_APP_ID") or "").strip()
    if not raw_id:
        raise InvalidInput("PARKBOT_APP_ID is not set: give the App's id (its settings page shows it)")
    if not raw_id.isdigit() or int(raw_id) <= 0:
        raise InvalidInput(f"PARKBOT_APP_ID must be the App's numeric id, got {raw_id!r}")
    key = env.get("PARKBOT_PRIVATE_KEY") or ""
    key_file = (env.get("PARKBOT_PRIVATE_KEY_FILE") or "").strip()
    name = "PARKBOT_PRIVATE_KEY"
    if not key.strip() and key_file:
        name = "PARKBOT_PRIVATE_KEY_FILE"
        try:
            key = Path(key_file).read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError) as exc:
            reason = exc.strerror if isinstance(exc, OSError) else "not text"
            raise InvalidInput(f"PARKBOT_PRIVATE_KEY_FILE: cannot read {key_file}: {reason}") from None
    if not key.strip():
        raise InvalidInput(
            "PARKBOT_PRIVATE_KEY is not set: give the App's private key (PEM text), or its path in "
            "PARKBOT_PRIVATE_KEY_FILE"
        )
    _check_key(key, name)
    return AppCredentials(int(raw_id), key, api_url(env))


def _check_key(key: str, name: str) -> None:
    """The key must be a PEM RSA private key (GitHub Apps sign their JWT with RS256); never shown."""
    from cryptography.hazmat.primitives.asymmetric import rsa
    from cryptography.hazmat.primitives.serialization import load_pem_private_key

    try:
        loaded = load_pem_private_key(key.strip().encode(), password=None)
    except (ValueError, TypeError):
        raise InvalidInput(
            f"{name} is not a PEM private key (the .pem file GitHub gave you when you generated the App's key; "
            "the key is not shown here)"
        ) from None
    if not isinstance(loaded, rsa.RSAPrivateKey):
        raise InvalidInput(f"{name} is not an RSA private key: GitHub Apps use RSA keys")

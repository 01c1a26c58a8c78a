"""``python -m parkbot`` is the same as the ``parkbot`` console script."""

from parkbot.cli import main

if __name__ == "__main__":  # pragma: no cover - exercised through subprocess tests
    main()

"""``python -m bot`` is the same as the ``parkbot`` console script."""

from bot.cli import main

if __name__ == "__main__":  # pragma: no cover - exercised through subprocess tests
    main()

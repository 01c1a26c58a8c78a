"""Generated from the models by ``python -m tests.support.prebuilt --write``: do not edit.

The pydantic the prebuilt schemas were generated with (see :mod:`parkbot.core.modeling`).
"""

PYDANTIC_VERSION = '2.14.4'
PYDANTIC_CORE_VERSION = '2.50.5'

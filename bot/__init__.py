"""parkbot: an unanswered question is work, so put it where you keep work.

Agents return ``needs_input`` results; parkbot turns each one into a durable backlog item
(an issue on GitHub, or an item on a ref of the repository itself), blocks what depends on it,
and records the owner's answer through a re-runnable, multi-step resolution.
"""

__version__ = "0.1.0"

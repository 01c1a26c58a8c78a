"""``parkbot serve``: parkbot as a GitHub App, a webhook server for many repositories on a durable queue.

A translating layer, like :mod:`parkbot.events` and :mod:`parkbot.cli`: it verifies and stores each delivery
(:mod:`.webhooks`, :mod:`.queue`), and its workers (:mod:`.worker`) run the same event router the action runs
(:func:`parkbot.events.handle_event`) against the API, with the App's installation token
(:mod:`parkbot.trackers.github.app`). It holds no rule of its own.
"""

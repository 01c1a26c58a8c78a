"""Tracker backends: the embedded git backlog (:mod:`bot.trackers.git`) and GitHub."""

"""Tracker backends: the embedded git backlog (:mod:`parkbot.trackers.git`) and GitHub."""

"""The core: every rule parkbot applies, over plain values, with no I/O of its own.

Adapters (``parkbot.trackers.git``, ``parkbot.trackers.github``) store and fetch; ``parkbot.events`` and
``parkbot.cli`` translate what arrives into one call here and the outcome into output. Nothing in this
package knows GitHub's or git's vocabulary: that is what lets one contract suite prove both backends.
"""

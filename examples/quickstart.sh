#!/usr/bin/env bash
# The whole parkbot loop on the embedded git backlog, in a throwaway repository: no token, no network.
#   park -> gate blocked (exit 1) -> resolve -> gate open (exit 0)
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
demo="$(mktemp -d)"
trap 'rm -rf "$demo"' EXIT
cd "$demo"

git init -q -b main
git config user.name "Alice" && git config user.email "alice@example.com"
git commit -q --allow-empty -m "initial"
git switch -q -c agent/billing-42
git commit -q --allow-empty -m "Refund flow, waiting for a decision" -m "Blocked-by: billing-42-decision-refund"

echo "\$ parkbot park needs_input.json"
parkbot park "$here/needs_input.json"

echo; echo "\$ parkbot gate --ref agent/billing-42"
if parkbot gate --ref agent/billing-42; then echo "unexpected: the gate should be closed" >&2; exit 1; fi

echo; echo "\$ parkbot resolve billing-42-decision-refund --answer full_original"
parkbot resolve billing-42-decision-refund --answer full_original

echo; echo "\$ parkbot gate --ref agent/billing-42"
parkbot gate --ref agent/billing-42

echo; echo "\$ git log --oneline refs/parkbot/backlog"
git log --oneline refs/parkbot/backlog

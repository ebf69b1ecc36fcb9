#!/usr/bin/env bash
# Set up and start Engram on the embedded default (local store, MiniLM, offline LLM):
# the HTTP server (`engram serve`, prints a dev API key) unless other arguments are given.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
exec .venv/bin/engram "${@:-serve}"

#!/usr/bin/env bash
# Set up and start Engram on the embedded default (local store, MiniLM, offline LLM).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
exec .venv/bin/engram "${@:-chat}"

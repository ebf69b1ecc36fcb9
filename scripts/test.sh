#!/usr/bin/env bash
# Set up and run the whole test suite.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh test
bash scripts/browser.sh  # Debian's Chromium for the browser tests, when missing
.venv/bin/ruff check .  # lint: the rules in pyproject.toml's [tool.ruff]
.venv/bin/mypy          # types: strict on the modules [tool.mypy] lists
exec .venv/bin/python -m pytest "$@"

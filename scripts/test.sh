#!/usr/bin/env bash
# Set up and run the whole test suite.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh test
bash scripts/browser.sh  # Debian's Chromium for the browser tests, when missing
exec .venv/bin/python -m pytest "$@"

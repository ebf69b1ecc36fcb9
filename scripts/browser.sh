#!/usr/bin/env bash
# Install Debian's Chromium for the memory board's browser tests, once; Playwright drives it, never downloads one.
# A failure here does not stop the run: the browser tests then fail and say why.
set -uo pipefail
if [ -x /usr/bin/chromium ]; then
  exit 0
fi
if ! command -v apt-get >/dev/null 2>&1; then
  echo "browser.sh: no apt-get here; install Chromium at /usr/bin/chromium yourself" >&2
  exit 0
fi
sudo=""
if [ "$(id -u)" -ne 0 ]; then
  if command -v sudo >/dev/null 2>&1 && sudo -n true 2>/dev/null; then
    sudo="sudo -n"
  else
    echo "browser.sh: not root and no sudo; run: apt-get install -y chromium fonts-liberation" >&2
    exit 0
  fi
fi
echo "browser.sh: installing Chromium (apt-get)" >&2
export DEBIAN_FRONTEND=noninteractive
$sudo apt-get update -qq && $sudo apt-get install -y -qq chromium fonts-liberation >/dev/null \
  || echo "browser.sh: apt-get could not install chromium" >&2
exit 0

#!/usr/bin/env bash
# Browser tests drive Debian's Chromium through Playwright (never a downloaded browser).
# Installs chromium (and CJK fonts, so tile kanji render in screenshots) when missing and possible;
# otherwise says why: the browser tests then skip locally and fail under CI=true.
set -u
if command -v chromium >/dev/null 2>&1; then
  exit 0
fi
if [ "$(id -u)" = "0" ] && command -v apt-get >/dev/null 2>&1; then
  echo "ensure-browser: installing Debian's chromium for the browser tests"
  apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends \
    chromium fonts-noto-cjk >/dev/null && exit 0
fi
echo "ensure-browser: chromium is not installed and could not be installed (apt-get install chromium)" >&2
exit 0

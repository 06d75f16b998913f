#!/bin/sh
# The test command's system and npm packages (README, "Set up and use"): Debian's
# Chromium (browser tests), faketime (reproducibility test) and Java (HTML validator)
# where missing, which needs root; then the pinned npm tools of package-lock.json (npm ci, into node_modules/).
# Nothing here is needed to build the site.
set -eu
cd "$(dirname "$0")/.."
# command:Debian package; java runs the W3C HTML validator (npm vnu-jar)
NEEDED="chromium:chromium faketime:faketime java:default-jre-headless"
missing=""
for pair in $NEEDED; do
    command -v "${pair%%:*}" >/dev/null 2>&1 || missing="$missing ${pair#*:}"
done
if [ -n "$missing" ]; then
    if [ "$(id -u)" = 0 ]; then
        echo "test-setup: installing Debian packages:$missing"
        apt-get update -qq && apt-get install -y -qq $missing >/dev/null
    elif command -v sudo >/dev/null 2>&1 && sudo -n true 2>/dev/null; then
        echo "test-setup: installing Debian packages with sudo:$missing"
        sudo apt-get update -qq && sudo apt-get install -y -qq $missing >/dev/null
    else
        echo "test-setup: missing$missing; installing them needs root: run" \
             "'apt-get install -y$missing' as root, then this command again" >&2
        exit 1
    fi
fi
if [ -f package-lock.json ]; then
    command -v npm >/dev/null 2>&1 || { echo "test-setup: npm is missing (Node 20 or newer)" >&2; exit 1; }
    if ! npm ls --silent >/dev/null 2>&1; then
        echo "test-setup: installing the pinned npm tools (npm ci)"
        # --ignore-scripts: vnu-jar's install script would fetch a Java of its own
        npm ci --ignore-scripts --no-audit --no-fund --loglevel=error
    fi
fi

#!/bin/sh
# Makes the Python venv the push benchmark's peer runs in (firebase-admin from PyPI), once.
# A failure (no network) only leaves the peer out of the benchmark.
venv="${1:-.build/bench-venv}"
if [ -x "$venv/bin/python" ] && "$venv/bin/python" -c 'import firebase_admin' 2>/dev/null; then exit 0; fi
python3 -m venv "$venv" && "$venv/bin/pip" install --quiet --disable-pip-version-check firebase-admin \
    || echo "make-venv.sh: could not install firebase-admin; the push benchmark runs without its peer" >&2
exit 0

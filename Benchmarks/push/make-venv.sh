#!/bin/sh
# Makes the Python venv the benchmarks' Python peers and clients run in, once: firebase-admin (the push benchmark's
# peer), pymongo (PYMONGO_VERSION, the wire benchmark's driver) and psycopg (its PostgreSQL peer's), from PyPI.
# A failure (no network) only leaves what it lacks out of the benchmarks.
venv="${1:-.build/bench-venv}"
pymongo="pymongo==${PYMONGO_VERSION:-4.10.1}"
if [ -x "$venv/bin/python" ] && "$venv/bin/python" -c 'import firebase_admin, pymongo, psycopg' 2>/dev/null; then exit 0; fi
[ -x "$venv/bin/python" ] || python3 -m venv "$venv" || exit 0
for package in firebase-admin "$pymongo" "psycopg[binary]"; do
    "$venv/bin/pip" install --quiet --disable-pip-version-check "$package" \
        || echo "make-venv.sh: could not install $package; the benchmarks that need it run without it" >&2
done
exit 0

#!/usr/bin/env bash
# Builds a libFuzzer target and runs it: Fuzz/run.sh <target> <seconds>
# Targets: bson (Fuzz/BSONDecoderFuzz.swift). Crashers land in .build/fuzz/<target>-artifacts/.
set -euo pipefail
cd "$(dirname "$0")/.."
target="${1:?usage: Fuzz/run.sh <target> <seconds>}"
seconds="${2:-60}"
case "$target" in
    bson) harness=Fuzz/BSONDecoderFuzz.swift; module=BSONFuzz ;;
    *) echo "unknown fuzz target '$target' (known: bson)" >&2; exit 2 ;;
esac
mkdir -p .build/fuzz "Fuzz/corpus/$target" ".build/fuzz/$target-corpus" ".build/fuzz/$target-artifacts"
swiftc -sanitize=fuzzer,address -parse-as-library -O -module-name "$module" \
    Sources/BSON/*.swift "$harness" -o ".build/fuzz/$target" 2> ".build/fuzz/$target-build.log" \
    || { cat ".build/fuzz/$target-build.log" >&2; exit 1; }
# New inputs go to the scratch corpus under .build; the checked-in seeds stay small.
exec ".build/fuzz/$target" -max_total_time="$seconds" -max_len=16384 -timeout=10 -rss_limit_mb=4096 \
    -artifact_prefix=".build/fuzz/$target-artifacts/" ".build/fuzz/$target-corpus" "Fuzz/corpus/$target"

#!/bin/sh
# Builds a libFuzzer target (its harness compiled together with the module sources it exercises, under
# AddressSanitizer) and runs it for a bounded time.
#
#   Fuzz/run.sh <target> [seconds]      e.g. Fuzz/run.sh ejson 180
#
# Seeds come from Fuzz/corpus/<target>/ (read only); new inputs go to .build/fuzz/corpus/<target>/, crashes to
# .build/fuzz/<target>-crash-*. Fuzz/<target>.dict is used when present. Exit status is libFuzzer's: non-zero
# when it found a crash.
set -eu
cd "$(dirname "$0")/.."

target=${1:?usage: Fuzz/run.sh <target> [seconds]}
seconds=${2:-60}

# Target name → harness file and the module sources it is compiled with. One line per target.
case "$target" in
    ejson) harness=Fuzz/ExtendedJSONFuzz.swift; sources=Sources/BSON ;;
    bson) harness=Fuzz/BSONDecoderFuzz.swift; sources=Sources/BSON ;;
    *) echo "Fuzz/run.sh: unknown target '$target' (known: ejson, bson)" >&2; exit 2 ;;
esac

mkdir -p .build/fuzz "Fuzz/corpus/$target" ".build/fuzz/corpus/$target"
binary=".build/fuzz/$target"
# One module, so the harness reaches internal API; named apart from the real module to avoid clashes.
# The gold linker warns once per ASan symbol it cannot export; show the build log only when the build fails.
if ! find "$sources" -name '*.swift' -print0 | xargs -0 swiftc -sanitize=fuzzer,address -parse-as-library -O \
    -package-name Switchyard -module-name "Fuzz_$target" "$harness" -o "$binary" > ".build/fuzz/$target-build.log" 2>&1; then
    grep -v 'Cannot export local symbol' ".build/fuzz/$target-build.log" >&2
    exit 1
fi

set -- ".build/fuzz/corpus/$target" "Fuzz/corpus/$target" -max_total_time="$seconds" -print_final_stats=1 \
    -max_len=16384 -timeout=10 -rss_limit_mb=4096 \
    -artifact_prefix=".build/fuzz/$target-"
if [ -f "Fuzz/$target.dict" ]; then set -- "$@" -dict="Fuzz/$target.dict"; fi
# Swift's crash backtracer can hang under AddressSanitizer; libFuzzer reports crashes itself.
SWIFT_BACKTRACE=enable=no exec "$binary" "$@"

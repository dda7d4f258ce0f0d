#!/usr/bin/env bash
# HotPotato's one test command: builds with warnings as errors, runs every test, and checks the
# documentation. Run it from anywhere: `./Tests/run-all.sh`.
#
# Environment:
#   HOTPOTATO_SKIP_DOCS=1   skip the DocC check (it needs the `docc` tool of the toolchain)
set -euo pipefail

cd "$(dirname "$0")/.."

say() { printf '\n==> %s\n' "$*"; }

say "Building with warnings as errors"
swift build --build-tests -Xswiftc -warnings-as-errors

say "Running the tests"
swift test --skip-build

if [[ "${HOTPOTATO_SKIP_DOCS:-0}" != 1 ]]; then
  if command -v docc >/dev/null 2>&1; then
    say "Checking the DocC catalog (warnings are errors)"
    graphs=$(mktemp -d)
    trap 'rm -rf "$graphs"' EXIT
    swift build --target HotPotato -Xswiftc -emit-symbol-graph \
      -Xswiftc -emit-symbol-graph-dir -Xswiftc "$graphs" >/dev/null
    docc convert Sources/HotPotato/HotPotato.docc --additional-symbol-graph-dir "$graphs" \
      --analyze --warnings-as-errors --output-path "$graphs/out" \
      --fallback-display-name HotPotato --fallback-bundle-identifier org.hotpotato.HotPotato >/dev/null
  else
    echo "!!! docc not found: the documentation check is SKIPPED" >&2
  fi
fi

say "All checks passed"

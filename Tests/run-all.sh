#!/usr/bin/env bash
# HotPotato's one test command. On a fresh Debian machine it installs what the tests need when it
# is missing (nginx and openssl from apt, httpbin from PyPI), builds with warnings as errors, runs
# every test against both engines (the tests start and stop their own servers on 127.0.0.1; the
# CPU-bound suites in a pass of their own first), runs the fault soak on its own, runs the
# memory-bound tests on their own and one at a time, runs the concurrent transport suites under
# ThreadSanitizer, runs a smoke of both benchmark harnesses (so they never rot) and checks the
# handler microbenchmarks' malloc counts against their committed thresholds, and checks the DocC
# catalog. Run it from anywhere: `./Tests/run-all.sh`.
#
# Where nginx or httpbin cannot be installed (no apt, no root, no network), it says so loudly and
# runs everything else; the tests that need them are reported as skipped.
#
# Environment:
#   HOTPOTATO_SKIP_INSTALL=1   never install anything
#   HOTPOTATO_SKIP_DOCS=1      skip the DocC check (it needs the `docc` tool of the toolchain)
#   HOTPOTATO_SKIP_TSAN=1      skip the ThreadSanitizer run
#   HOTPOTATO_SKIP_BENCH=1     skip the benchmark smoke
set -euo pipefail

cd "$(dirname "$0")/.."

say() { printf '\n==> %s\n' "$*"; }
warn() { printf '\n!!! %s\n' "$*" >&2; }

as_root() {
  if [[ $(id -u) == 0 ]]; then "$@"; elif command -v sudo >/dev/null 2>&1; then sudo -n "$@"; else return 1; fi
}

have_nginx() { command -v nginx >/dev/null 2>&1 || [[ -x /usr/sbin/nginx ]]; }
have_httpbin() { command -v python3 >/dev/null 2>&1 && python3 -c 'import httpbin' >/dev/null 2>&1; }

install_test_servers() {
  if [[ "${HOTPOTATO_SKIP_INSTALL:-0}" == 1 ]]; then return; fi
  local apt_updated=0
  apt_install() {
    command -v apt-get >/dev/null 2>&1 || return 1
    if [[ $apt_updated == 0 ]]; then as_root apt-get update -qq || return 1; apt_updated=1; fi
    # Keep the package's own service from starting: the tests run nginx with their own config.
    as_root env DEBIAN_FRONTEND=noninteractive RUNLEVEL=1 apt-get install -y -qq --no-install-recommends "$@" >/dev/null
  }
  if ! have_nginx; then
    say "Installing nginx (apt)"
    apt_install nginx-light || apt_install nginx || true
  fi
  if ! command -v openssl >/dev/null 2>&1; then
    say "Installing openssl (apt), for the test certificate authority"
    apt_install openssl || true
  fi
  if ! have_httpbin; then
    say "Installing httpbin (PyPI)"
    if ! command -v python3 >/dev/null 2>&1 || ! python3 -m pip --version >/dev/null 2>&1; then
      apt_install python3 python3-pip || true
    fi
    python3 -m pip install --quiet --disable-pip-version-check httpbin 2>/dev/null \
      || python3 -m pip install --quiet --disable-pip-version-check --break-system-packages httpbin \
      || true
  fi
  have_nginx || warn "nginx is NOT installed and could not be installed: the nginx tests will be SKIPPED"
  have_httpbin || warn "httpbin is NOT installed and could not be installed: the httpbin tests will be SKIPPED"
  command -v openssl >/dev/null 2>&1 || warn "openssl is NOT installed: the HTTPS tests will FAIL"
}

install_test_servers

say "Building with warnings as errors"
swift build --build-tests -Xswiftc -warnings-as-errors

# A hung test process must fail the run, not stall it: each run gets a generous time limit.
limit() { if command -v timeout >/dev/null 2>&1; then timeout --kill-after=30 "$@"; else shift; "$@"; fi; }

# The suites that grind through exhaustive or random inputs run first, on their own: run beside
# the transfer tests, their synchronous loops hold the cooperative threads (two on a 2-core
# machine) for seconds, and tests that time a transfer or wait for a cancellation to reach the
# server then measure the wait instead.
cpu_bound_suites="JSONStringScanTests|UTF8ValidationTests|JSONChunkingTests|JSONDoubleParsingTests|JSONRandomDocumentTests"

say "Running the CPU-bound suites on their own"
limit 900 swift test --skip-build --filter "$cpu_bound_suites"

say "Running the other tests"
limit 1800 swift test --skip-build --skip "$cpu_bound_suites|FaultSoakTests"

# On its own too: 500 seeded random faults against every handler and both engines, about a minute.
# It prints its seed and a summary on standard error; a failure's message has the command that
# reruns its case (HOTPOTATO_SOAK_SEED=… HOTPOTATO_SOAK_CASE=…). The long soak is
# HOTPOTATO_SOAK_CASES=10000 (see Tests/HotPotatoTests/Soak/FaultSoakTests.swift).
say "Running the fault soak on its own (500 cases)"
limit 900 swift test --skip-build --filter FaultSoakTests

# One at a time, too: each downloads through a process of its own whose peak memory depends on
# URLSession's delegate queue getting CPU time, and a second probe spinning beside it took that
# time away (a CI run measured 80.25 MiB against an 80 MiB bound that way).
say "Running the memory-bound tests on their own, one at a time"
HOTPOTATO_MEMORY_TESTS=1 limit 600 swift test --skip-build --no-parallel --filter "MemoryBoundTests|JSONStreamMemoryTests"

if [[ "${HOTPOTATO_SKIP_TSAN:-0}" != 1 ]]; then
  say "Running the concurrent suites (transport, shared JSONDocument lookups) under ThreadSanitizer"
  swift build --build-tests --sanitize=thread --scratch-path .build-tsan
  # "Cancellation" selects CancellationRaceTests too: cancels racing completions, thousands of
  # times on each engine, each round with a deadline (about 75 s of the pass here).
  limit 1800 swift test --skip-build --sanitize=thread --scratch-path .build-tsan \
    --filter "Transport|Session|Cancellation|FaultMatrix|NginxTransfer|HTTPBin|SpillOrdering|TLS" 2>&1 \
    | tee .build-tsan/tsan.log
  # On their own, so that their CPU-bound threads cannot slow the transport suites' timed tests.
  limit 600 swift test --skip-build --sanitize=thread --scratch-path .build-tsan \
    --filter "JSONDocumentLookup" 2>&1 | tee -a .build-tsan/tsan.log
  if grep -q "WARNING: ThreadSanitizer" .build-tsan/tsan.log; then
    warn "ThreadSanitizer reported data races (see .build-tsan/tsan.log)"
    exit 1
  fi
fi

if [[ "${HOTPOTATO_SKIP_BENCH:-0}" != 1 ]]; then
  say "Benchmark smoke: end to end (small sizes, one run each; AsyncHTTPClient only in the full run)"
  limit 900 Benchmarks/run-e2e.sh --smoke --no-ahc > /dev/null
  say "Benchmark smoke: JSON against Foundation (1 MB documents)"
  (cd Benchmarks && limit 900 swift build -c release --product hotpotato-json > /dev/null \
    && limit 600 .build/release/hotpotato-json --smoke > /dev/null)
  say "Benchmark smoke: microbenchmarks, malloc counts against Benchmarks/Thresholds"
  (
    cd Benchmarks
    set +e
    for attempt in 1 2; do
      HOTPOTATO_BENCH_SMOKE=1 limit 1800 swift package benchmark thresholds check --no-progress > .build/thresholds-check.log 2>&1
      status=$?
      # swift-package's plugin runner has been seen to crash in libdispatch; try once more if so.
      grep -a -q "Program crashed" .build/thresholds-check.log || break
      warn "swift package crashed while running the benchmarks (attempt $attempt)"
    done
    set -e
    grep -a -E "Deviations (worse|better) than threshold|is (WORSE|BETTER) than" .build/thresholds-check.log || true
    # The plugin exits 1 for fewer mallocs than committed as well as for more: only more fails.
    # (Its message may read "is error: benchmarkThresholdImprovement" before "BETTER than …".)
    if grep -a -q "Deviations worse than threshold" .build/thresholds-check.log \
       || { [[ $status != 0 ]] && ! grep -a -q -E "BETTER than the defined thresholds|benchmarkThresholdImprovement" .build/thresholds-check.log; }; then
      tail -40 .build/thresholds-check.log >&2
      warn "microbenchmark malloc counts regressed, or the benchmark run failed (exit $status)"
      exit 1
    fi
  )
fi

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
    warn "docc not found: the documentation check is SKIPPED"
  fi
fi

have_nginx && have_httpbin || warn "Some integration tests were SKIPPED: nginx or httpbin is missing (see above)"
say "All checks passed"

#!/usr/bin/env bash
# HotPotato's one test command. Run it from anywhere: `./Tests/run-all.sh`. In order, it
#   1. installs what the tests need when it is missing (Tests/install-test-servers.sh: nginx,
#      openssl and curl from apt, httpbin from PyPI);
#   2. builds everything, tests included, with warnings as errors;
#   3. runs the CPU-bound suites (target HotPotatoCPUBoundTests) in a pass of their own;
#   4. runs the ordinary tests (target HotPotatoTests) against both engines; the tests start and
#      stop their own servers on 127.0.0.1;
#   5. runs the fault soak (target HotPotatoSoakTests), 500 cases, on its own;
#   6. runs the memory-bound tests (target HotPotatoMemoryTests) on their own, one at a time;
#   7. runs the concurrent suites (transport and uploads; retries, interceptors, monitors,
#      proxies; element and event streams; shared JSONDocument lookups) under ThreadSanitizer;
#   8. runs a smoke of both benchmark harnesses (so they never rot) and checks the handler
#      microbenchmarks' malloc counts against the thresholds committed for the running toolchain
#      (Benchmarks/Thresholds/<Swift version>/; none for this toolchain: said loudly, not compared);
#   9. checks the DocC catalog.
# A plain `swift test` runs every target too (the memory-bound tests skip themselves there).
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

# Exit status 2: something could not be installed, and it said so; the run goes on without it.
Tests/install-test-servers.sh || [[ $? == 2 ]]

say "Building with warnings as errors"
swift build --build-tests -Xswiftc -warnings-as-errors

# A hung test process must fail the run, not stall it: each run gets a generous time limit. When
# one passes, Tests/watchdog.sh shows where the test process's threads stood and which tests had
# started and not ended, then stops the pass (exit status 124). Each pass's whole output is kept
# in .build/test-logs/; the console gets it without the lines of tests that start and pass.
watchdog="$PWD/Tests/watchdog.sh"
export HOTPOTATO_PASS_LOGS="$PWD/.build/test-logs"
limit() { "$watchdog" "$@"; }

# Each pass selects a test target: a test's identifier begins with its target's name
# (HotPotatoCPUBoundTests.JSONStringScanTests/…), and --filter is a regular expression over it.

# The suites that grind through exhaustive or random inputs run first, on their own: run beside
# the transfer tests, their synchronous loops hold the cooperative threads (two on a 2-core
# machine) for seconds, and tests that time a transfer or wait for a cancellation to reach the
# server then measure the wait instead.
say "Running the CPU-bound suites on their own (HotPotatoCPUBoundTests)"
limit 900 swift test --skip-build --filter '^HotPotatoCPUBoundTests\.'

# At most 32 tests at a time (swift-testing otherwise starts all ~760 at once): every
# URLSession-engine test of the process shares FoundationNetworking's one work queue, and with
# hundreds of transfers started together a test waited 20-40 s for its first byte and failed its
# own deadline — a failure of correct work. 32 keeps the machine busy (most tests wait on sockets).
say "Running the other tests (HotPotatoTests), 32 at a time"
limit 900 swift test --skip-build --filter '^HotPotatoTests\.' --experimental-maximum-parallelization-width 32

# On its own too: 500 seeded random faults against every handler and both engines, about a minute.
# It prints its seed and a summary on standard error; a failure's message has the command that
# reruns its case (HOTPOTATO_SOAK_SEED=… HOTPOTATO_SOAK_CASE=…). The long soak is
# HOTPOTATO_SOAK_CASES=10000 (see Tests/HotPotatoSoakTests/FaultSoakTests.swift). The filter
# names the suite as well as the target: the soak checks its memory bound only when its --filter
# names FaultSoak alone (FaultSoakTests.runsAlone).
say "Running the fault soak on its own, 500 cases (HotPotatoSoakTests)"
limit 900 swift test --skip-build --filter '^HotPotatoSoakTests\.FaultSoakTests'

# One at a time, too: each downloads through a process of its own whose peak memory depends on
# URLSession's delegate queue getting CPU time, and a second probe spinning beside it took that
# time away (a CI run measured 80.25 MiB against an 80 MiB bound that way).
say "Running the memory-bound tests on their own, one at a time (HotPotatoMemoryTests)"
HOTPOTATO_MEMORY_TESTS=1 limit 600 swift test --skip-build --no-parallel --filter '^HotPotatoMemoryTests\.'

if [[ "${HOTPOTATO_SKIP_TSAN:-0}" != 1 ]]; then
  say "Running the concurrent suites (transport and uploads; retries, interceptors, monitors, proxies; element and event streams; shared JSONDocument lookups) under ThreadSanitizer"
  swift build --build-tests --sanitize=thread --scratch-path .build-tsan
  # Tests of the ordinary target (HotPotatoTests) whose names mention these. "Cancellation"
  # selects CancellationRaceTests too: cancels racing completions, thousands of times on each
  # engine, each round with a deadline (about 75 s of the pass here). "HTTP2" selects the curl
  # engine's HTTP/2 tests; "EngineStress" and "ConnectionLimit" the engine's I/O thread, its
  # handoff to the delivery threads, pauses, holds and cancels racing each other; "IOThread" the
  # small responses it delivers itself; "HotPotatoErrorValue" an error's shared details copied
  # on several threads at once; "DownloadLane" downloads on lanes of their own, blocked, bounded
  # and cancelled. The two tests
  # that measure a 1 s idle timeout against wall-clock naps and stalls are left to the ordinary
  # pass: under ThreadSanitizer's slowdown a handler's 1.6 s nap was once seen as an idle server
  # (a timing, not a race).
  limit 1800 swift test --skip-build --sanitize=thread --scratch-path .build-tsan \
    --filter '^HotPotatoTests\..*(Transport|Session|Cancellation|FaultMatrix|NginxTransfer|HTTPBin|SpillOrdering|TLS|HTTP2|StreamUpload|UploadReplay|OneShotBody|BodyRewind|EngineStress|ConnectionLimit|IOThread|HotPotatoErrorValue|DownloadLane|CallerDelivery|Checksum|ConditionalDownload|Segmented|Mirrored)' \
    --skip 'aHandlerSlowerThanTheTimeoutIsNotAnIdleServer|timeoutWhileTheServerStalls' \
    --experimental-maximum-parallelization-width 8 2>&1 \
    | tee .build-tsan/tsan.log
  # The retries, interceptors, monitors, redirect behaviours and proxies, whose calls run as
  # attempts on tasks of their own, the cookie jars shared by threads and calls, and the element
  # and event streams, whose consumers and transfers meet in one state: in a run of their own,
  # since beside the suites above the ThreadSanitizer build's slowdown turned 20 s idle timeouts
  # into failures. The ten-thousand-cookie tests are left to the ordinary pass: they parse on one
  # thread, and the sanitizer's slowdown made them take over a minute.
  limit 900 swift test --skip-build --sanitize=thread --scratch-path .build-tsan \
    --filter '^HotPotatoTests\.(RetryTransferTests|AuthenticationTests|CookieJarLimitsTests|HostileCookieTests|EventMonitorTests|RedirectBehaviorTests|ProxyTests|ServerSentEventStreamTests|EventStreamReconnectionTests|EventStreamHTTP2Tests|JSONStreamingTests)/' \
    --skip 'tenThousand' --experimental-maximum-parallelization-width 8 \
    2>&1 | tee -a .build-tsan/tsan.log
  # On their own, so that their CPU-bound threads cannot slow the transport suites' timed tests.
  limit 600 swift test --skip-build --sanitize=thread --scratch-path .build-tsan \
    --filter '^HotPotatoTests\.JSONDocumentLookup' 2>&1 | tee -a .build-tsan/tsan.log
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
  # Malloc counts depend on the toolchain (the standard library's and Foundation's own
  # allocations), so the thresholds are kept per Swift version, as swift-nio keeps its
  # allocation limits: Benchmarks/Thresholds/6.3/ for every 6.3.x. Record a new toolchain's with
  #   swift package benchmark thresholds update --path Thresholds/<version>
  # (then delete the baselines' files, see BENCHMARKS.md).
  swift_version=$(swift --version 2>/dev/null | sed -nE 's/.*Swift version ([0-9]+\.[0-9]+).*/\1/p' | head -n 1)
  thresholds="Thresholds/${swift_version:-unknown}"
  if [[ -n "$swift_version" && -d "Benchmarks/$thresholds" ]]; then
    say "Benchmark smoke: microbenchmarks, malloc counts against Benchmarks/$thresholds"
    check=(thresholds check --path "$PWD/Benchmarks/$thresholds")
  else
    warn "NO malloc thresholds for this toolchain (Swift ${swift_version:-version unknown}): Benchmarks/$thresholds does not exist. The microbenchmarks run as a smoke, but their malloc counts are NOT CHECKED. Record them with: (cd Benchmarks && swift package benchmark thresholds update --path $thresholds)"
    say "Benchmark smoke: microbenchmarks (malloc counts not checked)"
    check=()
    malloc_unchecked=1
  fi
  (
    cd Benchmarks
    set +e
    for attempt in 1 2; do
      HOTPOTATO_BENCH_SMOKE=1 limit 1800 swift package benchmark ${check[@]+"${check[@]}"} --no-progress > .build/thresholds-check.log 2>&1
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

Tests/install-test-servers.sh --check >/dev/null 2>&1 \
  || warn "Some integration tests were SKIPPED: nginx or httpbin is missing (see above)"
if [[ "${malloc_unchecked:-0}" == 1 ]]; then
  warn "The microbenchmarks' malloc counts were NOT CHECKED: no Benchmarks/Thresholds/ for this toolchain (see above)"
fi
say "All checks passed"

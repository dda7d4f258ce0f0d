#!/usr/bin/env bash
# The end-to-end benchmark in one command: builds the harness (with AsyncHTTPClient unless
# --smoke or --no-ahc is given) and runs it; arguments go to hotpotato-e2e.
#
#   Benchmarks/run-e2e.sh                     the full run (1 MiB, 100 MiB, 1 GiB; 5 runs each)
#   Benchmarks/run-e2e.sh --smoke --no-ahc    small sizes, one run each (CI)
#   Benchmarks/run-e2e.sh --output e2e.md     also write the Markdown report to a file
#   Benchmarks/run-e2e.sh --json e2e.json     also write every run's figures and the medians as
#                                             JSON (not with --scale)
#   Benchmarks/run-e2e.sh --charts DIR        also draw the run's charts, as SVG files in DIR (what
#                                             BENCHMARKS.md shows, from Benchmarks/charts/)
#   Benchmarks/run-e2e.sh --only "per connection" --no-ahc
#                                             256 MiB from nginx capping each connection at
#                                             16 MiB/s: HotPotato over 8 connections against
#                                             aria2c -x8 -s8 and wget2 (when installed) and curl
#   Benchmarks/run-e2e.sh --scale             the scale scenarios alone (many event streams,
#                                             head-of-line, fan-out) against bench-server, which is
#                                             built too (SwiftNIO; AsyncHTTPClient's rows unless
#                                             --no-ahc, even with --smoke)
set -euo pipefail
# Paths given relative to where the script is run from stay so, though it runs in Benchmarks/.
here=$PWD
args=()
takes_path=0
for arg in "$@"; do
  if (( takes_path )) && [[ "$arg" != /* ]]; then arg="$here/$arg"; fi
  takes_path=0
  case "$arg" in --output|--json|--charts|--ahc) takes_path=1 ;; esac
  args+=("$arg")
done
cd "$(dirname "$0")"
swift build -c release --product rusage-exec
swift build -c release --product hotpotato-e2e
if [[ " $* " == *" --scale "* ]]; then
  swift build -c release --product bench-server
  if [[ " $* " != *" --no-ahc "* ]]; then
    swift build -c release --product ahc-e2e
  fi
elif [[ " $* " != *" --smoke "* && " $* " != *" --no-ahc "* ]]; then
  swift build -c release --product ahc-e2e
fi
exec .build/release/hotpotato-e2e "${args[@]}"

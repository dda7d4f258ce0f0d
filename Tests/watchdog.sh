#!/usr/bin/env bash
# Tests/watchdog.sh SECONDS COMMAND [ARGUMENT...]
#
# Runs COMMAND (a `swift test` pass) with a time limit. Its whole output is kept in
# $HOTPOTATO_PASS_LOGS (by default .build/test-logs/), and passed through without the lines of
# tests that start and pass ("◇ Test … started.", "✔ Test … passed …"): failures, their details,
# sanitizer reports and each pass's summary remain, so that a CI log kept to its first few
# hundred kilobytes still ends with what matters.
# When the limit passes, a hang is made diagnosable before the pass is stopped (exit status 124,
# as timeout(1)):
#   - where every thread of each test process stands (gdb, when it is there or can be installed),
#     the frames of our own code printed, every frame kept in .build/hang-<time>.txt;
#   - last, so that the end of the output says it: the tests that had started and not ended.
# These reports go to standard error. A pass that ends by itself keeps its own exit status.
set -uo pipefail

limit=$1
shift
logs=${HOTPOTATO_PASS_LOGS:-$PWD/.build/test-logs}
mkdir -p "$logs"
log=$(mktemp "$logs/pass-$(date +%H%M%S)-XXXX.log")
echo "(the whole output of: $*, in $log)"

# A session of its own, so that the whole pass (swift test and the test processes it starts) can
# be found and stopped together.
setsid "$@" > "$log" 2>&1 < /dev/null &
pass=$!
tail -n +1 -f --pid="$pass" "$log" \
  | awk '/^◇ / { next } /^✔ (Test|Suite) / && !/^✔ Test run with/ { next } { print; fflush() }' &
echoer=$!

# The tests that started and did not end: swift-testing prints "◇ Test NAME started." and, at its
# end, "✔ Test NAME passed …" or "✘ Test NAME failed …" (a test with arguments: "… with N test
# cases passed …"; its cases start as "◇ Test case passing … to NAME started.").
unfinished() {
  awk '
    /◇ Test .* started\.$/ && !/◇ Test (case passing|run started)/ {
      name = $0; sub(/^.*◇ Test /, "", name); sub(/ started\.$/, "", name); started[name] = 1; order[++n] = name
    }
    /[✔✘] Test .* (passed|failed)/ {
      name = $0; sub(/^.*[✔✘] Test /, "", name); sub(/ (with [0-9]+ test cases? )?(passed|failed).*$/, "", name); ended[name] = 1
    }
    END { for (i = 1; i <= n; i++) if (!(order[i] in ended) && !(order[i] in shown)) { print "    " order[i]; shown[order[i]] = 1 } }
  ' "$log"
}

# Where each thread of the test processes stands.
backtraces() {
  local processes="" stat
  # The pass's session, read from /proc (no procps needed): field 6 of stat is the session.
  for stat in /proc/[0-9]*/stat; do
    local fields
    fields=$(sed -E 's/^.*\) //' "$stat" 2> /dev/null) || continue
    [[ $(awk '{ print $4 }' <<< "$fields") == "$pass" ]] || continue
    local pid=${stat#/proc/}
    pid=${pid%/stat}
    tr '\0' ' ' < "/proc/$pid/cmdline" 2> /dev/null | grep -q '\.xctest' && processes+="$pid "
  done
  [[ -n "$processes" ]] || { echo "(no test process is left)"; return; }
  if ! command -v gdb > /dev/null 2>&1 && [[ $(id -u) == 0 ]] && command -v apt-get > /dev/null 2>&1; then
    echo "(installing gdb to read the threads)"
    DEBIAN_FRONTEND=noninteractive timeout 300 apt-get install -y -qq gdb > /dev/null 2>&1 \
      || { timeout 300 apt-get update -qq > /dev/null 2>&1 && DEBIAN_FRONTEND=noninteractive timeout 300 apt-get install -y -qq gdb > /dev/null 2>&1; }
  fi
  if ! command -v gdb > /dev/null 2>&1; then
    echo "(gdb is not available: the threads cannot be shown)"
    return
  fi
  mkdir -p .build
  local file
  file=".build/hang-$(date +%Y%m%d-%H%M%S).txt"
  for process in $processes; do
    echo "== test process $process" >> "$file"
    timeout 300 gdb -p "$process" -batch -nx -ex 'set pagination off' -ex 'thread apply all bt 40' 2>&1 \
      | { if command -v swift-demangle > /dev/null 2>&1; then swift-demangle --simplified; else swift demangle --simplified 2>/dev/null || cat; fi; } \
      >> "$file"
  done
  echo "Every thread's frames: $file. The threads in our own code, their first frames there:"
  awk '
    /^== test process/ { print; next }
    /^Thread [0-9]+ / { flush(); header = $0; count = 0; next }
    /^#[0-9]+ / && /HotPotato/ { if (count < 8) frames[++count] = $0 }
    function flush(   i) { if (count > 0) { print header; for (i = 1; i <= count; i++) print "  " substr(frames[i], 1, 300) } count = 0 }
    END { flush() }
  ' "$file"
}

deadline=$((SECONDS + limit))
while kill -0 "$pass" 2> /dev/null; do
  if ((SECONDS >= deadline)); then
    {
      echo
      echo "!!! The pass did not end within $limit s: $*"
      backtraces
    } >&2
    kill -TERM -- "-$pass" 2> /dev/null
    for _ in $(seq 1 30); do kill -0 "$pass" 2> /dev/null || break; sleep 1; done
    kill -KILL -- "-$pass" 2> /dev/null
    wait "$pass" 2> /dev/null
    wait "$echoer" 2> /dev/null
    {
      echo
      echo "!!! The pass was stopped after $limit s. Tests that had started and not ended:"
      unfinished
    } >&2
    exit 124
  fi
  sleep 1
done
wait "$pass"
status=$?
wait "$echoer"
exit "$status"

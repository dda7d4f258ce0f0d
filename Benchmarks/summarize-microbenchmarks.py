#!/usr/bin/env python3
"""Turns `swift package benchmark --no-progress` text output into the Markdown table of BENCHMARKS.md.

    swift package benchmark --no-progress > micro.txt
    ./summarize-microbenchmarks.py micro.txt

For each benchmark: the median (p50) wall-clock time, the throughput it implies for the bytes the
benchmark's title names (8 MiB per handler run, 64 MiB per file write, 8 MB per JSON document),
the median malloc count per iteration, and the peak resident memory.
"""
import re
import sys

UNITS = {"ns": 1e-9, "μs": 1e-6, "us": 1e-6, "ms": 1e-3, "s": 1.0}
BYTES = {"HandlerThroughput": 8 * 2**20, "TextDecoding": 8 * 2**20, "FileWriting": 64 * 2**20, "JSONParsing": 8_000_000}


def main(path):
    text = open(path, encoding="utf-8").read()
    target = None
    rows = []
    lines = text.split("\n")
    for index, line in enumerate(lines):
        found = re.search(r"Benchmarks/(\w+)", line) if "Running" in line or "Build complete" in line else None
        if re.match(r"^=+$", line.strip()) and index > 0:
            name = lines[index - 1].strip()
            if name in BYTES:
                target = name
        if line.startswith("╒") and index > 1:
            title = lines[index - 1].strip() or lines[index - 2].strip()
            metrics = {}
            for row in lines[index + 1:]:
                if row.startswith("╘"):
                    break
                if row.startswith("│"):
                    cells = [cell.strip() for cell in row.split("│")[1:-1]]
                    metrics[cells[0]] = cells[3]
            rows.append((target, title, metrics))
    print("| Target | Benchmark | Median time | MiB/s | Mallocs | Peak RSS (MB) |")
    print("|---|---|--:|--:|--:|--:|")
    for target, title, metrics in rows:
        time_key = next((key for key in metrics if key.startswith("Time (wall clock)")), None)
        if time_key is None:
            continue
        unit = re.search(r"\((\S+)\)", time_key).group(1)
        seconds = float(metrics[time_key]) * UNITS[unit]
        rate = BYTES.get(target, 0) / seconds / 2**20 if seconds > 0 else float("nan")
        mallocs = next((value for key, value in metrics.items() if key.startswith("Malloc (total)")), "")
        memory = next((value for key, value in metrics.items() if key.startswith("Memory (resident peak)")), "")
        print(f"| {target} | {title} | {metrics[time_key]} {unit} | {rate:,.0f} | {mallocs} | {memory} |")


if __name__ == "__main__":
    main(sys.argv[1])

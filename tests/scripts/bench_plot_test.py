#!/usr/bin/env python3
"""What bench/plot writes into docs/benchmarks.md, from made-up Google Benchmark results whose answers are known:
the CPU target table (judged on the paired copy, falling back to the run's copy, with the fraction of the run's
streaming copy beside it) and the machine lines (one per machine, even when two VMs share a host name).

    tests/scripts/bench_plot_test.py
"""
import gzip
import json
import os
import subprocess
import sys
import tempfile

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..")
N = 1 << 26
failures = []


def context(system, l2_kib, date):
    return {"host_name": "vm", "num_cpus": 2, "mhz_per_cpu": 2600, "date": date, "dpt_device_system": system,
            "load_avg": [0.5, 0.5, 0.5],
            "caches": [{"type": "Data", "level": 1, "size": 32 * 1024, "num_sharing": 1},
                       {"type": "Unified", "level": 2, "size": l2_kib * 1024, "num_sharing": 1}]}


def bench(name, gb_per_second, copy_fraction, paired=None):
    b = {"name": f"{name}/{N}/manual_time", "run_type": "iteration", "real_time": 1000.0, "time_unit": "us",
         "bytes_per_second": gb_per_second * 1e9, "items_per_second": 1e9, "copy_fraction": copy_fraction}
    if paired is not None:
        b["paired_copy_fraction"] = paired
    return b


def write(path, ctx, benchmarks):
    with gzip.open(path, "wt") as f:
        json.dump({"context": ctx, "benchmarks": benchmarks}, f)


def plot(results):
    """The markdown bench/plot writes for these results files."""
    out = os.path.join(os.path.dirname(results[0]), "out")
    markdown = os.path.join(out, "benchmarks.md")
    run = subprocess.run([sys.executable, os.path.join(ROOT, "bench", "plot"), "--no-png", "--out", out,
                          "--markdown", markdown] + results, capture_output=True, text=True)
    if run.returncode != 0:
        print(f"FAILED: bench/plot exited {run.returncode}:\n{run.stderr}")
        sys.exit(1)
    with open(markdown) as f:
        return f.read()


def expect(text, line, why):
    if line not in text.splitlines():
        failures.append(f"{why}: no line\n    {line}")


def expect_count(text, prefix, count, why):
    found = [l for l in text.splitlines() if l.startswith(prefix)]
    if len(found) != count:
        failures.append(f"{why}: {len(found)} lines start with {prefix!r}, expected {count}: {found}")


with tempfile.TemporaryDirectory() as work:
    # omp: copy 20 GB/s, streaming copy 30 GB/s; the scan and compaction report paired fractions
    omp_scan = os.path.join(work, "omp-scan.1.json.gz")
    write(omp_scan, context("omp", 2048, "2026-12-02T07:00:00+00:00"), [
        bench("copy/thrust_device", 20, 1.0),
        bench("copy/streaming", 30, 1.5),
        bench("scan/dpt", 24, 1.2, paired=0.90),
        bench("compact/dpt", 18, 0.9, paired=0.84),
    ])
    # tbb: no paired fraction (the target falls back to the run's copy) and no streaming copy
    tbb_scan = os.path.join(work, "tbb-scan.1.json.gz")
    write(tbb_scan, context("tbb", 2048, "2026-12-02T07:10:00+00:00"), [
        bench("copy/thrust_device", 20, 1.0),
        bench("segmented_scan/dpt", 17.4, 0.87),
    ])
    # another omp family, run on the same machine
    omp_sort = os.path.join(work, "omp-sort.1.json.gz")
    write(omp_sort, context("omp", 2048, "2026-12-02T07:20:00+00:00"), [bench("sort/thrust", 1, 0.05)])

    text = plot([omp_scan, tbb_scan, omp_sort])
    expect(text, "| omp | dpt::inclusive_scan | 0.90 | 1.20 | 0.80 | met |",
           "a scan at 0.90 of its paired copy meets the target; 24 of the streaming copy's 30 GB/s is 0.80")
    expect(text, "| omp | dpt::compact | 0.84 | 0.90 | 0.60 | not met |",
           "the target is judged on the paired copy (0.84), not on the run's copy (0.90)")
    expect(text, "| tbb | dpt::segmented_scan | 0.87 | 0.87 | — | met |",
           "without a paired copy the run's copy judges; without a streaming copy its column is a dash")
    expect_count(text, "- omp: 2 CPUs", 1, "two families run on one machine share its line")

    # the sort rerun on another VM of the same name (a larger L2): a line of its own, with its own caches
    write(omp_sort, context("omp", 4096, "2026-12-02T08:00:00+00:00"), [bench("sort/thrust", 1, 0.05)])
    text = plot([omp_scan, tbb_scan, omp_sort])
    expect_count(text, "- omp: 2 CPUs", 2, "results from two machines named alike get a line each")
    machines = [l for l in text.splitlines() if l.startswith("- omp: 2 CPUs")]
    if not any("L2 2048 KiB" in l and "scan 2026-12-02 07:00" in l and "sort" not in l for l in machines):
        failures.append(f"the first machine's line does not hold just its scan run: {machines}")
    if not any("L2 4096 KiB" in l and "sort 2026-12-02 08:00" in l and "scan" not in l for l in machines):
        failures.append(f"the second machine's line does not hold just its sort run: {machines}")

for failure in failures:
    print("FAILED:", failure)
print(f"bench_plot: {len(failures)} failure(s)")
sys.exit(1 if failures else 0)

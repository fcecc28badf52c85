#!/usr/bin/env python3
"""What bench/plot writes into docs/benchmarks.md, from made-up Google Benchmark results whose answers are known:
the CPU target table (judged on the paired copy, falling back to the run's copy, with the fraction of the run's
streaming copy beside it), the machine lines (one per machine, even when two VMs share a host name), the fraction
of copy (worked out from each file's own copy at the same bytes, never from the JSON's counter; none outside the
copy's sizes), variants ranked by median time across processes, the lecture's predictions with their verdicts,
the environment line, the reader's target and the hand-written notes copied into their families.

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


def bench(name, gb_per_second, copy_fraction=None, paired=None, n=N, bytes_moved=None):
    """One result of `name`/n moving `bytes_moved` (8n by default) at that rate; copy_fraction is the counter
    the executable wrote, which bench/plot must not read."""
    bytes_moved = 8.0 * n if bytes_moved is None else bytes_moved
    b = {"name": f"{name}/{n}/manual_time", "run_type": "iteration", "time_unit": "us",
         "real_time": bytes_moved / (gb_per_second * 1e9) * 1e6, "bytes_per_second": gb_per_second * 1e9,
         "items_per_second": 1e9}
    if copy_fraction is not None:
        b["copy_fraction"] = copy_fraction
    if paired is not None:
        b["paired_copy_fraction"] = paired
    return b


def line_with(text, *parts):
    """The first line of `text` holding every one of `parts`, or None."""
    return next((l for l in text.splitlines() if all(p in l for p in parts)), None)


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
    write(omp_sort, context("omp", 2048, "2026-12-02T07:20:00+00:00"),
          [bench("copy/thrust_device", 20), bench("sort/thrust", 1, 0.05)])

    text = plot([omp_scan, tbb_scan, omp_sort])
    expect(text, "| omp | dpt::inclusive_scan | 0.90 | 1.20 | 0.80 | met |",
           "a scan at 0.90 of its paired copy meets the target; 24 of the streaming copy's 30 GB/s is 0.80")
    expect(text, "| omp | dpt::compact | 0.84 | 0.90 | 0.60 | not met |",
           "the target is judged on the paired copy (0.84), not on the run's copy (0.90)")
    expect(text, "| tbb | dpt::segmented_scan | 0.87 | 0.87 | — | met |",
           "without a paired copy the run's copy judges; without a streaming copy its column is a dash")
    expect_count(text, "- omp: 2 CPUs", 1, "two families run on one machine share its line")

    # the sort rerun on another VM of the same name (a larger L2): a line of its own, with its own caches
    write(omp_sort, context("omp", 4096, "2026-12-02T08:00:00+00:00"),
          [bench("copy/thrust_device", 20), bench("sort/thrust", 1, 0.05)])
    text = plot([omp_scan, tbb_scan, omp_sort])
    expect_count(text, "- omp: 2 CPUs", 2, "results from two machines named alike get a line each")
    machines = [l for l in text.splitlines() if l.startswith("- omp: 2 CPUs")]
    if not any("L2 2048 KiB" in l and "scan 2026-12-02 07:00" in l and "sort" not in l for l in machines):
        failures.append(f"the first machine's line does not hold just its scan run: {machines}")
    if not any("L2 4096 KiB" in l and "sort 2026-12-02 08:00" in l and "scan" not in l for l in machines):
        failures.append(f"the second machine's line does not hold just its sort run: {machines}")

with tempfile.TemporaryDirectory() as work:
    # One process: copies of 2^20 and 2^22 int32 (8 and 32 MiB) at 40 and 10 GB/s. A grid moving 16 MiB at 10 GB/s
    # lies halfway between them in log(bytes): its baseline is 20 GB/s (straight line in log–log), its fraction 0.5.
    # One moving 64 MiB (above the largest copy) and one moving 4 MiB (below the smallest) have none. The counters
    # the executable wrote (copy_fraction 9) are wrong on purpose.
    mib = 1 << 20
    one = os.path.join(work, "omp-grid.1.json.gz")
    ctx = context("omp", 2048, "2026-12-02T09:00:00+00:00")
    ctx["dpt_environment"] = "OMP_WAIT_POLICY=passive"
    write(one, ctx, [
        bench("copy/thrust_device", 40, 9, n=1 << 20), bench("copy/thrust_device", 10, 9, n=1 << 22),
        bench("grid/5_sort/mid", 10, 9, n=1 << 20, bytes_moved=16 * mib),
        bench("grid/5_sort/large", 10, 9, n=1 << 20, bytes_moved=64 * mib),
        bench("grid/5_sort/small", 10, 9, n=1 << 20, bytes_moved=4 * mib),
    ])
    text = plot([one])
    row = line_with(text, "| omp | 5_sort | mid |")
    if not row or not row.endswith("| 0.500 |"):
        failures.append(f"between two copy sizes the baseline is interpolated in log–log (0.500): {row}")
    for case in ("large", "small"):
        row = line_with(text, f"| omp | 5_sort | {case} |")
        if not row or not row.endswith("| — |"):
            failures.append(f"outside the copy's sizes ({case}) there is no fraction of copy: {row}")
    expect(text, "- environment of the runs: OMP_WAIT_POLICY=passive", "the environment comes from the results")

    # Three processes of one run, copies of 2^20 int32 at 10, 20 and 40 GB/s. row_per_thread took 4, 2 and 1 ms
    # (median 2), flat 1, 2.5 and 1.5 ms (median 1.5): flat is faster and is listed first. Each process's own
    # fraction is B/(time·copy): row_per_thread's are all B/40, flat's B/10, B/50 and B/60, so medians of
    # per-process fractions (B/40 against B/50) would rank them the other way round. The fraction shown is the
    # median bytes/s over the median copy: B / 1.5 ms / 20 GB/s.
    runs = []
    for p, (copy_gbps, row_ms, flat_ms) in enumerate([(10, 4, 1), (20, 2, 2.5), (40, 1, 1.5)], start=1):
        path = os.path.join(work, f"tbb-spmv.{p}.json.gz")
        n = 1 << 20
        moved = 8.0 * n
        write(path, context("tbb", 2048, f"2026-12-02T10:0{p}:00+00:00"), [
            bench("copy/thrust_device", copy_gbps, n=n),
            bench("spmv/dpt_row_per_thread/powerlaw_1M", moved / (row_ms * 1e-3) / 1e9, n=n),
            bench("spmv/dpt_flat/powerlaw_1M", moved / (flat_ms * 1e-3) / 1e9, n=n),
        ])
        runs.append(path)
    text = plot(runs)
    summary = line_with(text, "- **tbb** powerlaw_1M")
    if not summary or not summary.index("dpt_flat") < summary.index("dpt_row_per_thread"):
        failures.append(f"variants are listed by median time, fastest first: {summary}")
    flat = line_with(text, "| tbb | dpt_flat | powerlaw_1M |")
    expected_fraction = f"{8.0 * (1 << 20) / 1.5e-3 / 20e9:.3f}"
    if not flat or not flat.endswith(f"| {expected_fraction} |"):
        failures.append(f"the fraction is median bytes/s over the median copy ({expected_fraction}): {flat}")
    expect(text, "- Prediction: one task per row is slower than the flat form on a power-law matrix. tbb **held** "
           "(dpt_row_per_thread took 1.33× the time of dpt_flat on powerlaw_1M).",
           "a prediction the medians bear out is stated as held")

    # The same prediction, borne out nowhere: one task per row faster. And the reader's MB/s target.
    path = os.path.join(work, "omp-spmv.1.json.gz")
    write(path, context("omp", 2048, "2026-12-02T11:00:00+00:00"), [
        bench("copy/thrust_device", 20, n=1 << 20),
        bench("spmv/dpt_row_per_thread/powerlaw_8M", 8, n=1 << 20),
        bench("spmv/dpt_flat/powerlaw_8M", 4, n=1 << 20),
        bench("read_matrix_market/big", 0.04, n=3000000, bytes_moved=3e6),
        bench("read_matrix_market/tiny", 0.5, n=1000, bytes_moved=1e3),
    ])
    text = plot([path])
    expect(text, "- Prediction: one task per row is slower than the flat form on a power-law matrix. omp **not borne "
           "out here** (dpt_row_per_thread took 0.50× the time of dpt_flat on powerlaw_8M).",
           "a prediction the measurement contradicts says so")
    reader = line_with(text, "- **omp** MB of file per second")
    if not reader or "big 40, tiny 500" not in reader or "**not met**" not in reader:
        failures.append(f"the reader is judged on its largest file (40 MB/s < 50: not met): {reader}")

    # Within PREDICTION_MARGIN (5%) either way, medians decide nothing: one task per row 3% slower, then 3% faster.
    for row_gbps, ratio in ((9.7, "1.03"), (10.3, "0.97")):
        path = os.path.join(work, "omp-spmv.1.json.gz")
        write(path, context("omp", 2048, "2026-12-02T11:00:00+00:00"), [
            bench("copy/thrust_device", 20, n=1 << 20),
            bench("spmv/dpt_row_per_thread/powerlaw_8M", row_gbps, n=1 << 20),
            bench("spmv/dpt_flat/powerlaw_8M", 10, n=1 << 20),
        ])
        expect(plot([path]), "- Prediction: one task per row is slower than the flat form on a power-law matrix. omp "
               f"**too close to call here** (dpt_row_per_thread took {ratio}× the time of dpt_flat on powerlaw_8M).",
               f"a difference of a few percent ({ratio}×) is neither held nor contradicted")

with tempfile.TemporaryDirectory() as work:
    # bench_simt_switch: Google Benchmark's own main, real time (names end in /real_time), no size; the family is the
    # file's. One schedule under the target of 5 M switches/s makes the verdict "not met".
    path = os.path.join(work, "omp-simt_switch.1.json.gz")
    rows = [{"name": f"BM_simt_{variant}/real_time", "run_type": "iteration", "real_time": 20.0, "time_unit": "ms",
             "items_per_second": rate, "switches/s": rate}
            for variant, rate in (("nanosleep_switches", 16e6), ("syncwarp_switches_forward", 4e6))]
    write(path, context("omp", 2048, "2026-12-02T12:00:00+00:00"), rows)
    text = plot([path])
    expect(text, "- **omp** fiber switches per second: nanosleep 16.0 M/s, syncwarp_forward 4.0 M/s. Target (≥ 5 M "
           "switches/s in every schedule): **not met**.", "bench_simt_switch's real-time rows are one family")
    if "## BM_simt" in text:
        failures.append("a /real_time suffix made each bench_simt_switch benchmark a family of its own")

with tempfile.TemporaryDirectory() as work:
    # A GPU run: bench_grid's GPU builds time the global lock only at 64K particles, the sort at both sizes. The
    # target at 1M says why it has no time; at 64K it is judged (64 ms against 0.5 ms: 128×), and the prediction
    # compares the two at 64K and says so. The single pass with CUB's three choices at 0.96× CUB meets the scan target.
    path = os.path.join(work, "cuda-grid.1.json.gz")
    moved = 1e6
    write(path, context("cuda", 2048, "2026-12-04T10:00:00+00:00"), [
        bench("copy/thrust_device", 1000, n=1 << 20),
        bench("grid/5_sort/16_cells", moved / 2e-3 / 1e9, n=1 << 20, bytes_moved=moved),
        bench("grid/5_sort/16_cells", moved / 0.5e-3 / 1e9, n=1 << 16, bytes_moved=moved),
        bench("grid/1_global_lock/16_cells", moved / 64e-3 / 1e9, n=1 << 16, bytes_moved=moved),
        bench("scan/cub_device_scan", 3000, n=1 << 28),
        bench("scan/kernels_single_pass_as_cub", 2880, n=1 << 28),
        bench("scan/kernels_single_pass", 1800, n=1 << 28),
    ])
    text = plot([path])
    expect(text, "| sort-based grid ≥ 10× the global lock (1M particles, 16 cells) | — | not timed: over 40 s a run on "
           "an H200 (check-3), so GPU builds time the global lock at 64K particles |",
           "without the global lock at 1M particles the lecture's case says why it has no time")
    expect(text, "| sort-based grid ≥ 10× the global lock (64K particles, 16 cells) | 128.0× | met |",
           "at 64K particles both ran: the target is judged there")
    expect(text, "- Prediction: the sort-based grid beats the global lock (16 cells). cuda **held** (1_global_lock took "
           "128.00× the time of 5_sort on 16_cells at n = 2^16, the largest both ran at).",
           "a prediction compares two variants at the largest n both ran at, and names it when one was cut")
    expect(text, "| single-pass scan with all three of CUB's choices (also its tile) ≥ 0.95× CUB at 2^28 | 0.96× | met |",
           "each single-pass variant is judged against CUB")
    expect(text, "| single-pass scan ≥ 0.95× CUB at 2^28 int32 | 0.60× | NOT met |", "the default single pass too")
    expect(text, "| single-pass scan, CUB's look-back sleeps ≥ 0.95× CUB at 2^28 | — | not measured |",
           "a variant that did not run is not measured")

    # A GPU run cut before bench_grid: neither size has a time, and nothing is said about why the 1M case has none.
    path = os.path.join(work, "cuda-scan-only.1.json.gz")
    write(path, context("cuda", 2048, "2026-12-04T11:00:00+00:00"), [bench("copy/thrust_device", 1000, n=1 << 20)])
    text = plot([path])
    expect(text, "| sort-based grid ≥ 10× the global lock (1M particles, 16 cells) | — | not measured |",
           "a run without the sort at 1M particles did not measure the lecture's case")

with tempfile.TemporaryDirectory() as work:
    # The hand-written notes (OUT/notes.md): each "## FAMILY" section is copied into that family's section, after its
    # table; one for a family the results do not hold gets a section of its own; text before the first heading and
    # a heading with nothing under it are not copied.
    path = os.path.join(work, "omp-scan.1.json.gz")
    write(path, context("omp", 2048, "2026-12-02T07:00:00+00:00"),
          [bench("copy/thrust_device", 20), bench("scan/dpt", 24, paired=0.90)])
    os.makedirs(os.path.join(work, "out"))
    with open(os.path.join(work, "out", "notes.md"), "w") as f:
        f.write("# notes\n\nNot copied.\n\n## scan\n\n- A streamed scan took 22 ms.\n\n## grid\n\n- The map step."
                "\n\n## sort\n\n")
    text = plot([path])
    lines = text.splitlines()
    expect(text, "- A streamed scan took 22 ms.", "a family's notes are copied")
    scan_table = next((i for i, l in enumerate(lines) if l.startswith("| omp | dpt |")), None)
    note = lines.index("- A streamed scan took 22 ms.") if "- A streamed scan took 22 ms." in lines else None
    if scan_table is None or note is None or not scan_table < note:
        failures.append(f"the scan notes follow the scan table (table line {scan_table}, note line {note})")
    expect(text, "## grid", "notes on a family without results get a section of their own")
    expect(text, "- The map step.", "and are copied there")
    expect_count(text, "**Measured for dpt's design** (hand-written in [notes.md](notes.md)", 2,
                 "one heading per family with notes, linking the notes (the empty sort section has none)")
    if "Not copied." in text or "## sort" in lines:
        failures.append("text before the first heading, or an empty section, was copied")

for failure in failures:
    print("FAILED:", failure)
print(f"bench_plot: {len(failures)} failure(s)")
sys.exit(1 if failures else 0)

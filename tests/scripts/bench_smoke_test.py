#!/usr/bin/env python3
"""What bench/smoke accepts, with stand-in benchmark executables: it passes a run whose benchmarks all checked
out, and fails one where a benchmark reported an error (a failed check before timing), one that exits non-zero,
one whose JSON is cut short, and one that ran only the copy baselines. It also passes the executable its
arguments.

    tests/scripts/bench_smoke_test.py
"""
import json
import os
import subprocess
import sys
import tempfile

SMOKE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "bench", "smoke")
failures = []


def stand_in(folder, name, stdout, status=0):
    """An executable that records its arguments next to itself, prints `stdout` and exits with `status`."""
    path = os.path.join(folder, name)
    with open(path, "w") as f:
        f.write("#!/usr/bin/env python3\nimport sys\n"
                f"open({path + '.args'!r}, 'w').write(' '.join(sys.argv[1:]))\n"
                f"sys.stdout.write({stdout!r})\nsys.exit({status})\n")
    os.chmod(path, 0o755)
    return path


def results(*benchmarks):
    return json.dumps({"context": {}, "benchmarks": list(benchmarks)})


def smoke(path, *args):
    return subprocess.run([SMOKE, path, *args], capture_output=True, text=True)


def expect(what, run, passes, says=None):
    if (run.returncode == 0) != passes:
        failures.append(f"{what}: exit status {run.returncode}, expected {'0' if passes else 'non-zero'}\n"
                        f"  stdout: {run.stdout.strip()}\n  stderr: {run.stderr.strip()}")
    elif says and says not in run.stdout + run.stderr:
        failures.append(f"{what}: does not say '{says}': {run.stdout.strip()} {run.stderr.strip()}")


copy = {"name": "copy/thrust_device/1024/manual_time"}
good = {"name": "sort/thrust/1024/manual_time"}
wrong = {"name": "sort/std_sort/1024/manual_time", "error_occurred": True,
         "error_message": "the keys are not the input's keys in ascending order"}

with tempfile.TemporaryDirectory() as folder:
    passing = stand_in(folder, "bench_good", results(copy, good))
    expect("every benchmark checked out", smoke(passing, "--dpt_max_log2=12"), True, "1 benchmarks ran")
    with open(passing + ".args") as f:
        arguments = f.read()
    if arguments != "--dpt_max_log2=12 --benchmark_format=json":
        failures.append(f"the executable got '{arguments}', not its arguments and --benchmark_format=json")

    expect("a benchmark reported an error", smoke(stand_in(folder, "bench_wrong", results(copy, good, wrong))), False,
           "sort/std_sort/1024/manual_time: the keys are not the input's keys in ascending order")
    expect("the executable exited non-zero", smoke(stand_in(folder, "bench_exit", results(copy, good), 1)), False,
           "exited with status 1")
    expect("the JSON is cut short", smoke(stand_in(folder, "bench_cut", results(copy, good)[:-20])), False,
           "did not print Google Benchmark's JSON")
    expect("only the copy baselines ran", smoke(stand_in(folder, "bench_copies", results(copy))), False,
           "no benchmark besides the copy baselines")
    expect("no executable named", subprocess.run([SMOKE], capture_output=True, text=True), False)

for failure in failures:
    print("FAIL:", failure)
print(f"bench_smoke_test: {len(failures)} failures")
sys.exit(1 if failures else 0)

#!/usr/bin/env python3
"""Differential tests of dpt's apps: random inputs, adversarial ones included, each app's output compared with an
independent reference computed here in Python (exact integers and fractions, NumPy 2's histogram, brute force).

    differential.py PATH/TO/dpt-APP [--seconds S] [--seed CASE_SEED] [--master-seed SEED]

APP is scan, histogram, spmv or grid (see scan.py, histogram.py, spmv.py, grid.py for what each checks). Cases
run until S seconds are spent (default 20; env DPT_DIFFERENTIAL_SECONDS), the last one may end past it. Each
case's seed is drawn from a master seed printed at the start; a failure prints `FAILED seed=S [class]: what
differs`, the app's command line and how to replay that case alone (--seed S, or env DPT_DIFFERENTIAL_SEED=S,
which also keeps the case's files). The run ends with `N passed, M failed` and exits 1 if any failed.
Needs Python 3 and NumPy (Debian's python3-numpy; re-runs itself under /usr/bin/python3 when this python lacks it).
"""
import argparse
import os
import random
import shlex
import shutil
import sys
import tempfile
import time
import traceback

try:
    import numpy  # noqa: F401  (the app modules need it)
except ImportError:
    if os.path.exists("/usr/bin/python3") and os.path.realpath(sys.executable) != os.path.realpath("/usr/bin/python3"):
        os.execv("/usr/bin/python3", ["/usr/bin/python3"] + sys.argv)
    sys.exit("differential.py: needs NumPy (apt-get install python3-numpy)")

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import numpy as np  # noqa: E402

from common import Case, Failure, NoDevice  # noqa: E402

APPS = {"dpt-scan": "scan", "dpt-histogram": "histogram", "dpt-spmv": "spmv", "dpt-grid": "grid"}


def run_case(module, app, seed, keep):
    """Runs the case SEED; returns None if it passed, else the report's lines."""
    rng = random.Random(seed)
    names, weights, tests = zip(*module.CLASSES)
    index = rng.choices(range(len(tests)), weights=weights)[0]
    folder = tempfile.mkdtemp(prefix="dpt-differential-%d-" % seed)
    case = Case(app, seed, rng, folder)
    report = None
    try:
        with np.errstate(all="ignore"):
            tests[index](case)
    except NoDevice:
        print("skipped: no device")
        sys.exit(77)
    except Failure as e:
        report = ["FAILED seed=%d [%s]: %s" % (seed, names[index], e)]
    except Exception:  # a bug of the test itself: reported as a failure too, with its traceback
        report = ["FAILED seed=%d [%s]: the test raised\n%s" % (seed, names[index], traceback.format_exc())]
    if report:
        if case.commands:
            report.append("  app: " + case.commands[-1])
        report.append("  replay: DPT_DIFFERENTIAL_SEED=%d %s %s" % (
            seed, shlex.quote(os.path.abspath(__file__)), shlex.quote(app)))
    if keep:
        print("case %d [%s] kept in %s" % (seed, names[index], folder))
        for command in case.commands:
            print("  " + command)
    else:
        shutil.rmtree(folder, ignore_errors=True)
    return names[index], report


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("app", help="the app's executable (dpt-scan, dpt-histogram, dpt-spmv or dpt-grid)")
    parser.add_argument("--seconds", type=float, default=float(os.environ.get("DPT_DIFFERENTIAL_SECONDS", 20)))
    parser.add_argument("--seed", type=int, default=os.environ.get("DPT_DIFFERENTIAL_SEED"),
                        help="replay this one case and keep its files")
    parser.add_argument("--master-seed", type=int, help="replay a whole run")
    args = parser.parse_args()
    name = os.path.basename(args.app)
    if name not in APPS:
        parser.error("%s is not one of %s" % (name, ", ".join(APPS)))
    module = __import__(APPS[name])
    app = os.path.abspath(args.app)

    if args.seed is not None:
        _, report = run_case(module, app, int(args.seed), keep=True)
        print("\n".join(report) if report else "passed")
        print("%d passed, %d failed" % (report is None, report is not None))
        return 1 if report else 0

    master = args.master_seed if args.master_seed is not None else random.SystemRandom().randrange(2 ** 63)
    print("%s: master seed %d, %.0f s (replay the run with --master-seed %d)" % (name, master, args.seconds, master))
    sys.stdout.flush()
    seeds = random.Random(master)
    passed, failed, per_class = 0, 0, {}
    end = time.monotonic() + args.seconds
    while time.monotonic() < end:
        klass, report = run_case(module, app, seeds.randrange(2 ** 63), keep=False)
        counts = per_class.setdefault(klass, [0, 0])
        if report:
            failed += 1
            counts[1] += 1
            # every failure's seed; the command lines of the first few of each class
            print("\n".join(report if counts[1] <= 5 else report[:1]))
            sys.stdout.flush()
        else:
            passed += 1
            counts[0] += 1
    for klass, (p, f) in sorted(per_class.items()):
        print("  %-32s %5d passed %5d failed" % (klass, p, f))
    print("%d passed, %d failed" % (passed, failed))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())

"""dpt-histogram against numpy.histogram itself, which README promises to match exactly.

Values come as text (blank lines, spaces, CRLF), raw .f32, .f64 or .u8, and are read here with the same dtype
(np.fromfile), so NumPy sees what the app sees: its edges in the bins' dtype (float32 for float32 data), its bin
for a value on an edge, its last bin closed. Random bins (1..1000, sometimes more), with and without --range
(inside, around or across the data, LO = HI widened), and values that sit on the edges: linspace data,
repeated values, one distinct value, integers, NaN and Inf where a range is given. --out must equal NumPy's counts
and the dropped line its below/above/NaN counts, for every --method. Where NumPy refuses (NaN or Inf without a
range, bins too narrow for distinct edges) the app must exit 2; so must malformed lines (naming the line), raw
files of the wrong size, and an --out naming the input."""
import re

import numpy as np

from common import Failure, draw_size, output_names_input, write_text_lines

METHODS = ["sort", "upper-bound", "reduce-by-key", "atomic", "privatized", "all"]
FORMATS = {"txt": np.float64, "f64": np.float64, "f32": np.float32, "u8": np.uint8}


def draw_values(rng, fmt, n, kind, bins):
    """N values of the file's dtype, of the given kind; NaN and Inf only for the float formats."""
    nprng = np.random.default_rng(rng.getrandbits(64))
    if fmt == "u8":
        if kind == "one value":
            return np.full(n, rng.randint(0, 255), dtype=np.uint8)
        top = rng.choice([1, 7, 255])
        return nprng.integers(0, top + 1, n).astype(np.uint8)
    dtype = FORMATS[fmt]
    center, scale = rng.uniform(-100, 100) * 10.0 ** rng.randint(-3, 3), 10.0 ** rng.randint(-6, 6)
    if kind == "normal":
        x = nprng.normal(center, scale, n)
    elif kind == "linspace":  # the edges themselves, as NumPy makes them (its linspace), and points between
        x = np.linspace(center - scale, center + scale, rng.choice([bins + 1, 2 * bins + 1, n]))
        x = nprng.choice(x, n) if n else x[:0]
    elif kind == "repeated":
        x = nprng.choice(nprng.normal(center, scale, rng.randint(1, 5)), n)
    elif kind == "one value":
        x = np.full(n, center)
    elif kind == "integers":
        x = nprng.integers(-rng.randint(0, 20), rng.randint(0, 20) + 1, n).astype(float)
    else:  # "with NaN and Inf"
        x = nprng.normal(center, scale, n)
        for i in nprng.choice(n, min(n, rng.randint(1, 5)), replace=False) if n else []:
            x[i] = rng.choice([np.nan, np.inf, -np.inf, np.nan])
    return x.astype(dtype)


def draw_range(rng, x, fmt):
    """None, or a (lo, hi) around, inside or across the data's finite values; sometimes lo = hi."""
    finite = x[np.isfinite(x)] if fmt != "u8" else x
    if rng.random() < 0.4 and not (fmt != "u8" and len(finite) < len(x)):
        return None
    lo, hi = (float(finite.min()), float(finite.max())) if len(finite) else (0.0, 1.0)
    kind = rng.random()
    if kind < 0.15:
        v = rng.choice([lo, hi, rng.uniform(lo, hi)])
        return v, v
    if kind < 0.3:
        return lo, hi  # the data's own bounds: values on both outer edges
    a, b = sorted(rng.uniform(lo - (hi - lo + 1) * 0.5, hi + (hi - lo + 1) * 0.5) for _ in range(2))
    return (a, b) if a < b else (a, a + 1.0)


def numpy_reference(x, bins, given_range):
    """(counts, below, above, nan) as NumPy counts them, or None where NumPy refuses: its ValueError, and edges
    that are not strictly increasing, which NumPy 2.1 refuses ("Too many bins for data range") and 1.24 not yet."""
    try:
        edges = np.histogram_bin_edges(x, bins=bins, range=given_range)
    except ValueError:
        return None
    if np.any(edges[:-1] >= edges[1:]):  # checked first: 1.24's np.histogram can fail on them with an IndexError
        return None
    counts, _ = np.histogram(x, bins=bins, range=given_range)
    nan = int(np.isnan(x).sum()) if x.dtype.kind == "f" else 0
    below = above = 0
    if given_range is not None:
        first, last = given_range
        if first == last:
            first, last = first - 0.5, last + 0.5
        # as NumPy compares: the values in the edges' dtype against the range's Python floats
        values = x.astype(np.result_type(first, last, x) if x.dtype.kind == "f" else np.float64)
        below, above = int((values < first).sum()), int((values > last).sum())
    if int(counts.sum()) + below + above + nan != len(x):
        raise AssertionError("the reference's counts do not add up to %d values" % len(x))
    return counts, below, above, nan


def write_values(case, x, fmt):
    name = "values." + fmt
    if fmt != "txt":
        x.tofile(case.path(name))  # little-endian on every machine dpt runs on
        return name, None
    tokens = [repr(float(v)) if np.isfinite(v) else case.rng.choice({"nan": ["nan", "NaN"], "inf": ["inf"],
                                                                      "-inf": ["-inf"]}[repr(float(v))])
              for v in x]
    return name, write_text_lines(case.path(name), tokens, case.rng)


def range_args(given_range):
    return ["--range", "%r:%r" % given_range] if given_range is not None else []


def random_histogram(case):
    rng = case.rng
    fmt = rng.choice(list(FORMATS))
    kinds = ["normal", "linspace", "repeated", "one value", "integers"] + (["with NaN and Inf"] if fmt != "u8" else [])
    kind = rng.choice(kinds)
    bins = rng.randint(1, 1000) if rng.random() < 0.9 else rng.randint(1000, 100000)
    x = draw_values(rng, fmt, draw_size(rng, 5000, 50000), kind, bins)
    given_range = draw_range(rng, x, fmt)
    if kind == "with NaN and Inf" and rng.random() < 0.8:
        given_range = given_range or draw_range(rng, x[np.isfinite(x)], fmt) or (-1.0, 1.0)
    name, _ = write_values(case, x, fmt)
    method = rng.choice(METHODS)
    args = ["--input", name, "--bins", str(bins), "--method", method] + range_args(given_range) + ["--out", "counts.txt"]
    what = "%d %s values (%s) in %d bins, range %s, --method %s" % (len(x), fmt, kind, bins, given_range, method)
    expected = numpy_reference(x, bins, given_range)
    if expected is None:
        try:
            case.run_bad(args, inputs=[name])
        except Failure as e:
            raise Failure("%s: NumPy refuses: %s" % (what, e))
        return
    counts, below, above, nan = expected
    try:
        out = case.run_ok(args)
    except Failure as e:
        raise Failure("%s: %s" % (what, e))
    with open(case.path("counts.txt")) as f:
        got = [int(t) for t in f.read().split()]
    if got != counts.tolist():
        wrong = [i for i in range(min(len(got), bins)) if got[i] != counts[i]]
        first = wrong[0] if wrong else min(len(got), bins)
        raise Failure("%s: %d counts; %d bins differ from NumPy's, first bin %d: %s, NumPy %s" % (
            what, len(got), len(wrong), first, got[first] if first < len(got) else "none",
            counts[first] if first < bins else "none"))
    dropped = re.search(r"dropped: \d+ \(below the range (\d+), above it (\d+), NaN (\d+)\)", out)
    if not dropped or [int(g) for g in dropped.groups()] != [below, above, nan]:
        raise Failure("%s: dropped line %r, NumPy drops %d below, %d above, %d NaN" % (
            what, dropped.group(0) if dropped else None, below, above, nan))


def malformed_line(case):
    rng = case.rng
    n = rng.randint(1, 200)
    tokens = [repr(rng.uniform(-10, 10)) for _ in range(n)]
    at = rng.randrange(n)
    tokens[at] = rng.choice(["abc", "1,5", "1 2", "1..2", "1e999", "--3", "0x", "five"])
    lines = write_text_lines(case.path("values.txt"), tokens, rng)
    try:
        case.run_bad(["--input", "values.txt", "--bins", str(rng.randint(1, 50)), "--out", "counts.txt"],
                     fragments=["values.txt:%d:" % lines[at]], inputs=["values.txt"])
    except Failure as e:
        raise Failure("%r on line %d: %s" % (tokens[at], lines[at], e))


def wrong_size_raw_file(case):
    rng = case.rng
    fmt, size = rng.choice([("f32", 4), ("f64", 8)])
    name = "values." + fmt
    with open(case.path(name), "wb") as f:
        f.write(bytes(size * rng.randint(0, 10) + rng.randint(1, size - 1)))
    case.run_bad(["--input", name, "--bins", "4", "--out", "counts.txt"], fragments=[name], inputs=[name])


def out_names_input(case):
    rng = case.rng
    fmt = rng.choice(list(FORMATS))
    name, _ = write_values(case, draw_values(rng, fmt, rng.randint(0, 20), "normal", 4), fmt)
    output_names_input(case, ["--input", name, "--bins", str(rng.randint(1, 10))], name,
                       rng.choice(["--out", "--png"]))


CLASSES = [
    ("random values", 12, random_histogram),
    ("malformed line", 2, malformed_line),
    ("raw file of the wrong size", 1, wrong_size_raw_file),
    ("--out names the input", 1, out_names_input),
]

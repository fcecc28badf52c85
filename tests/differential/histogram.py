"""dpt-histogram against NumPy 2's numpy.histogram, which README promises to match exactly, on Debian's NumPy 1.24.

Why NumPy 2, and how. dpt-histogram follows NumPy 2 (README, algorithms/dpt/histogram_bins.hpp), and NumPy 1.24 (the
only NumPy CI has) differs from it: for float32 data without a range NumPy 2 (NEP 50) keeps the data's min and max,
the widening of one distinct value by 0.5 and np.linspace in float32, where 1.24 promotes them to float64 and rounds
the edges to float32 (the two disagree in many bins); and NumPy 2 refuses edges that are not strictly increasing
("Too many bins for data range"), which 1.24 counts. So this file does not call np.histogram for the edges: it
computes them as NumPy 2's np.histogram and np.linspace do (numpy2_bin_edges, numpy2_linspace, after
numpy/lib/_histograms_impl.py and numpy/_core/function_base.py of NumPy 2.4.6), in the arithmetic NumPy 2 uses,
with explicit np.float32 / np.float64 scalars and arrays so that 1.24 promotes nothing; then counts as NumPy 2's
equal-bins fast path does: an estimated bin moved at most one bin by those edges (numpy_reference). That matched
NumPy 2.4.6's np.histogram — edges bit for bit, counts, and which cases it refuses — on every one of 18,000 cases
drawn as here and adversarially (the commit that introduced it gives the numbers).

Values come as text (blank lines, spaces, CRLF), raw .f32, .f64 or .u8, and are read here with the same dtype
(np.fromfile), so the reference sees what the app sees: edges in the bins' dtype (float32 for float32 data), the bin
of a value on an edge, the last bin closed. Random bins (1..1000, sometimes more), with and without --range
(inside, around or across the data, LO = HI widened), and values that sit on the edges: linspace data (NumPy 2's
float32 linspace for .f32), repeated values, one distinct value, integers, NaN and Inf where a range is given; and
multiples of the smallest subnormal, whose edges are uneven by whole bins.
--out must equal NumPy 2's counts and the dropped line its below/above/NaN counts, for every --method. Where NumPy 2
refuses (NaN or Inf without a range, bins too narrow for distinct edges) the app must exit 2; so must malformed
lines (naming the line), raw files of the wrong size, and an --out naming the input."""
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
    elif kind == "linspace":  # the edges themselves, as NumPy 2 makes them (its linspace), and points between
        lo, hi, count = center - scale, center + scale, rng.choice([bins + 1, 2 * bins + 1, n])
        x = numpy2_linspace(lo, hi, count, np.float32) if dtype == np.float32 else np.linspace(lo, hi, count)
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


def numpy2_linspace(start, stop, num, calc):
    """np.linspace(start, stop, num) as NumPy 2 computes it (numpy/_core/function_base.py) in the arithmetic CALC
    (np.float32 or np.float64): y = arange(num); step = (stop - start) / (num - 1); y *= step, or where step
    underflows to 0 y /= num - 1 and y *= stop - start; y += start; y[-1] = stop. Every operand is a CALC scalar or
    array, so NumPy 1.24 rounds each operation in CALC as NumPy 2 does (no promotion to float64)."""
    start, stop = calc(start), calc(stop)
    y = np.arange(num).astype(calc)  # small integers: exact in either type
    delta = stop - start
    div = num - 1
    if div > 0:
        step = delta / calc(div)
        if step == 0:  # NumPy's branch for denormal steps (gh-5437)
            y /= calc(div)
            y *= delta
        else:
            y *= step
    else:
        y *= delta
    y += start
    if num > 1:
        y[-1] = stop
    return y


def numpy2_bin_edges(x, bins, given_range):
    """(edges, first, last, calc): np.histogram_bin_edges(x, bins, range) as NumPy 2 computes it
    (numpy/lib/_histograms_impl.py, _get_outer_edges and _get_bin_edges), with the outer edges first and last in the
    arithmetic calc they are computed in; or None where NumPy 2 raises a ValueError.

    The bounds: a range given is two Python floats, computed in float64; no values give Python ints 0 and 1
    (float64 too); else the data's min and max keep the data's type, so float32 data stays float32 (NEP 50) and
    uint8 bounds go to float64 (np.uint8 - 0.5 is float64; uint8 - uint8 is exact). An empty range is widened by 0.5
    each way in that arithmetic; linspace runs in it; the edges are then rounded to the bin type,
    np.result_type(first, last, x): float32 for float32 data (Python floats and ints are weak), float64 for the rest.
    Edges that are not strictly increasing are refused ("Too many bins for data range"). Edges that are not finite
    (a width that overflows) are refused too: NumPy 2 refuses them for bins >= 2 by the same test, and for bins = 1
    counts with a NaN edge or fails with an IndexError, where dpt refuses (README); the drawn ranges never
    overflow."""
    calc = np.float32 if x.dtype == np.float32 else np.float64
    bin_type = np.float32 if x.dtype == np.float32 else np.float64
    if given_range is not None:
        first, last = given_range
        if first > last or not (np.isfinite(first) and np.isfinite(last)):
            return None
        calc = np.float64
    elif len(x) == 0:
        first, last, calc = 0.0, 1.0, np.float64
    else:
        first, last = x.min(), x.max()
        if not (np.isfinite(first) and np.isfinite(last)):
            return None
    first, last = calc(first), calc(last)
    if first == last:
        first, last = first - calc(0.5), last + calc(0.5)
    edges = numpy2_linspace(first, last, bins + 1, calc).astype(bin_type)
    if not np.all(np.isfinite(edges)) or np.any(edges[:-1] >= edges[1:]):
        return None
    return edges, first, last, calc


def numpy_reference(x, bins, given_range):
    """(counts, below, above, nan) as NumPy 2's np.histogram(x, bins, range) counts them, or None where NumPy 2
    refuses. The edges come from numpy2_bin_edges; the counts from NumPy 2's equal-bins fast path, step by step: the
    values in [first, last] compared in the bin type (a Python float range is weak: float32 data compares with it
    rounded to float32), cast to the bin type; the estimate ((v - first) / (last - first)) * bins, where v - first is
    in the bin type and the division in calc (last - first is a float32 scalar for float32 data without a range, a
    float64 one otherwise, so float32 data with a range divides in float64), truncated, and bins made bins - 1; then
    one bin down if v < edge[i], one up if v >= edge[i + 1] (but not past the last). That equals the bin of
    [edge i, edge i+1) that holds v whenever the estimate is off by at most one bin; it is further off where the
    edges are uneven by whole bins, in a range a few subnormals wide (subnormal_range draws them), and there the one
    step, not the edges, decides: the values 0, 1, ..., 7 times 5e-324 in 5 bins have edges 0 1 2 3 4 7 (times
    5e-324), and NumPy 2 puts 4 (estimate 2.86, moved up once) in bin 3, [3, 4), counting [1 1 1 2 3]. The values
    below edge 0, above the last edge and NaN are those NumPy 2 drops, counted apart."""
    found = numpy2_bin_edges(x, bins, given_range)
    if found is None:
        return None
    edges, first, last, calc = found
    bin_type = edges.dtype.type
    values = x.astype(bin_type)
    nan = int(np.isnan(values).sum())
    lo, hi = bin_type(first), bin_type(last)  # == edges[0], edges[-1]
    below, above = int((values < lo).sum()), int((values > hi).sum())
    kept = values[(values >= lo) & (values <= hi)]
    offset = (kept - lo).astype(calc)
    estimate = (offset / (last - first)) * calc(bins)
    index = estimate.astype(np.intp)
    index[index == bins] -= 1
    if len(index) and (index.min() < 0 or index.max() > bins):
        raise AssertionError("NumPy 2's bin estimate falls outside its edges (it fails with an IndexError)")
    index[kept < edges[index]] -= 1
    index[(kept >= edges[index + 1]) & (index != bins - 1)] += 1
    counts = np.bincount(index, minlength=bins)
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
    check_counts(case, x, fmt, bins, given_range, kind)


def subnormal_range(case):
    """Values that are multiples of the smallest subnormal (5e-324 in float64, 1e-45 in float32), a few to 2**52 of
    them apart, so that the edges are uneven by whole bins (where NumPy 2's first guess is more than one bin off and
    its one step, not the edges, decides) or nearly even; the data's own range or one given around it."""
    rng = case.rng
    fmt = rng.choice(["f64", "f32", "txt"])
    dtype, smallest = FORMATS[fmt], (2.0 ** -149 if fmt == "f32" else 2.0 ** -1074)
    top = 1 << rng.choice([rng.randint(0, 12), rng.randint(0, 22 if fmt == "f32" else 52)])
    base, width = rng.randint(0, top), rng.randint(1, top)
    n = draw_size(rng, 3000, 20000)
    nprng = np.random.default_rng(rng.getrandbits(64))
    steps = np.concatenate([[base, base + width][:n], nprng.integers(base, base + width + 1, max(0, n - 2))])
    x = (steps.astype(np.float64) * smallest).astype(dtype)  # exact: fewer than 2**53 (2**24) smallest subnormals
    bins = rng.randint(1, min(width, 50) if rng.random() < 0.7 else 2000)
    given_range = None
    if rng.random() < 0.4:
        a, b = sorted(rng.randint(max(0, base - width // 4), base + width + width // 4) for _ in range(2))
        given_range = (a * smallest, b * smallest)
    check_counts(case, x, fmt, bins, given_range, "subnormal multiples %d + 0..%d" % (base, width))


def check_counts(case, x, fmt, bins, given_range, kind):
    """--out and the dropped line for x in bins with given_range, one random --method, against NumPy 2's counts;
    where NumPy 2 refuses, exit status 2."""
    rng = case.rng
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
    ("subnormal range", 3, subnormal_range),
    ("malformed line", 2, malformed_line),
    ("raw file of the wrong size", 1, wrong_size_raw_file),
    ("--out names the input", 1, out_names_input),
]

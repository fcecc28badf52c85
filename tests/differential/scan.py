"""dpt-scan against Python's exact arithmetic.

Integers (i32, i64): every output must equal the exact prefix sum; values near the type's limits make the sums
overflow, and the exact sums say which output first does. Floats (f32, f64): every output must lie within README's
bound of the exact sum, 1.01 * gamma_(k+1) * sum |x| for a prefix of k values (rounding in any order of adding);
their sums overflow where some run x[a..b] within an output's terms rounds to infinity (a parallel scan may add
that run). A scan that overflows must exit 2 naming the element of the first output that does, as
apps/scan/scan_check.hpp words it: x[i] first reaches output i of an inclusive scan and output i + 1 of an
exclusive one, so the message says "at element i" or "at element i+1", and in a text file the line of x[i]. An
exclusive scan outputs the sums of x[0..i-1] only, so for every type a total that overflows without being written
is no reason to refuse it: that scan must succeed (and the inclusive scan of the same values must be refused at
its last element). Inputs come as text (blank lines, spaces, CRLF) or raw little-endian files, sizes 0, 1, primes
and more, with every implementation. Malformed lines must exit 2 naming their line, and an --out naming the input
must be refused."""
import re
from fractions import Fraction

import numpy as np

from common import Failure, draw_size, gamma, output_names_input, write_text_lines

INTS = {"i32": np.int32, "i64": np.int64}
FLOATS = {"f32": np.float32, "f64": np.float64}
IMPLS = ["thrust", "lecture", "shfl", "blelloch", "single-pass"]


def limits(type_name):
    info = np.iinfo(INTS[type_name])
    return int(info.min), int(info.max)


def draw_ints(rng, type_name, n, kind):
    lo, hi = limits(type_name)
    if kind == "small":
        return [rng.randint(-1000, 1000) for _ in range(n)]
    if kind == "anywhere":  # the whole range: most scans overflow within a few elements
        return [rng.randint(lo, hi) for _ in range(n)]
    if kind == "only-total-overflows" and n >= 2:
        # the sums of x[0..n-2] stay within the type, the last value pushes the total past it
        return total_overflows(rng, n, lo, hi)
    # near the limit: a first value close to it, then small steps, so the sums cross it (or not) somewhere inside
    sign = rng.choice([1, -1])
    limit = hi if sign > 0 else lo
    x = [sign * rng.randint(-4, 8) for _ in range(n)]
    if n == 0:
        return x
    x[0] = limit - sign * rng.randint(0, 3 * n)
    return x


def total_overflows(rng, n, lo, hi):
    """N integers whose prefix sums x[0..i] stay within [lo, hi] for i < n - 1 (and so does every run x[a..b] of
    them) while the total passes it: a first value close to a limit, small steps, the limit last."""
    sign = rng.choice([1, -1])
    limit = hi if sign > 0 else lo
    x = [sign * rng.randint(-4, 8) for _ in range(n)]
    peak = max(abs(s) for s in np.cumsum(x[:-1]).tolist())
    x[0] += sign * (abs(limit) - rng.randint(0, 3) - peak)
    x[-1] = limit
    return x


def draw_floats(rng, type_name, n, kind):
    t = FLOATS[type_name]
    if kind in ("huge", "only-total-overflows"):
        # multiples of a coarse power of two, so every sum is exact in long double and Fraction
        bits, shift = (24, 104) if type_name == "f32" else (53, 971)
        top = 2 ** bits - 1
        if kind == "only-total-overflows" and n >= 2:  # top * 2^shift is the type's largest finite value
            return [float(t(v * 2.0 ** shift)) for v in total_overflows(rng, n, -top, top)]
        x = [rng.randint(-top, top) * 2.0 ** shift for _ in range(n)]
        return [float(t(v)) for v in x]
    if kind == "integers":
        return [float(rng.randint(-1000, 1000)) for _ in range(n)]
    scale = 10.0 ** rng.randint(-20, 20) if type_name == "f64" else 10.0 ** rng.randint(-10, 10)
    mixed = kind == "mixed-scales"
    return [float(t(rng.uniform(-1, 1) * scale * (10.0 ** rng.randint(-6, 6) if mixed else 1))) for _ in range(n)]


def reference(type_name, x, exclusive):
    """(outputs as Fractions or ints, per-output bound or None, index i of the first value x[i] that makes a written
    output overflow, or None) for the scan as README defines it; an exclusive scan never writes the total, so its
    last value makes nothing overflow."""
    n = len(x)
    if type_name in INTS:
        lo, hi = limits(type_name)
        prefix, running, first_bad = [], 0, None
        for i, v in enumerate(x):
            running += v
            prefix.append(running)
            written = i < n - 1 if exclusive else True  # an exclusive scan never writes the total
            if first_bad is None and written and not lo <= running <= hi:
                first_bad = i
        outputs = [0] + prefix[:-1] if exclusive and n else prefix
        return outputs, None, first_bad
    # floats: output i is safe while every run x[a..b] within it sums to a finite value (README); the threshold is
    # where the exact sum rounds to infinity
    big = Fraction(float(np.finfo(FLOATS[type_name]).max))
    ulp_half = Fraction(2) ** (103 if type_name == "f32" else 970)
    u = Fraction(1, 2 ** (24 if type_name == "f32" else 53))
    running = magnitude = highest = lowest = Fraction(0)
    outputs, bounds, first_bad = [], [], None
    for i, v in enumerate(x):
        v = Fraction(v)
        if exclusive:
            outputs.append(running)
            bounds.append(Fraction(101, 100) * gamma(i + 1, u) * magnitude)
        running += v
        magnitude += abs(v)
        highest, lowest = max(highest, running), min(lowest, running)
        written = i < n - 1 if exclusive else True
        if first_bad is None and written and highest - lowest >= big + ulp_half:
            first_bad = i
        if not exclusive:
            outputs.append(running)
            bounds.append(Fraction(101, 100) * gamma(i + 2, u) * magnitude)
    return outputs, bounds, first_bad


def format_value(type_name, v, rng):
    if type_name in INTS:
        return str(v)
    if type_name == "f32" and rng.random() < 0.3:
        return "%.9g" % v  # nine digits read back as the same float
    return repr(v)


def write_input(case, type_name, x, raw):
    """The input file, text or raw; returns (file name, line of each value or None)."""
    if raw:
        name = "values." + type_name
        dtype = INTS.get(type_name) or FLOATS[type_name]
        np.array(x, dtype=dtype).astype(np.dtype(dtype).newbyteorder("<")).tofile(case.path(name))
        return name, None
    name = "values.txt"
    return name, write_text_lines(case.path(name), [format_value(type_name, v, case.rng) for v in x], case.rng)


def read_output(case, type_name, name):
    with open(case.path(name)) as f:
        tokens = f.read().split()
    if type_name in INTS:
        return [int(t) for t in tokens]
    return [Fraction(float(FLOATS[type_name](float(t)))) for t in tokens]


def scan_case(case, kinds_int=("small", "anywhere", "near-limit", "only-total-overflows"),
              kinds_float=("uniform", "mixed-scales", "integers", "huge", "only-total-overflows")):
    rng = case.rng
    type_name = rng.choice(["i32", "i64", "f32", "f64"])
    kind = rng.choice(kinds_int if type_name in INTS else kinds_float)
    n = draw_size(rng)
    if kind in ("anywhere", "near-limit", "only-total-overflows", "huge"):
        n = min(n, 2000)
    x = draw_ints(rng, type_name, n, kind) if type_name in INTS else draw_floats(rng, type_name, n, kind)
    exclusive = rng.random() < 0.5
    raw = rng.random() < 0.3
    name, lines = write_input(case, type_name, x, raw)
    impl = rng.choice(IMPLS + ["all"])
    args = ["--input", name, "--impl", impl] + (["--type", type_name] if not raw or rng.random() < 0.5 else [])
    args += ["--exclusive"] if exclusive else []
    expected, bounds, first_bad = reference(type_name, x, exclusive)
    what = "%s %s %s scan of %d values (%s, %s)" % (type_name, kind, "exclusive" if exclusive else "inclusive", n,
                                                  "raw" if raw else "text", impl)
    if first_bad is not None:
        expect_overflow(case, what, args, name, lines, first_bad, exclusive)
        return
    try:
        case.run_ok(args + ["--out", "prefix.txt"])
    except Failure as e:
        raise Failure("%s: %s" % (what, e))
    check_output(case, what, type_name, expected, bounds)


def expect_overflow(case, what, args, name, lines, first_bad, exclusive):
    """The run must be refused, naming the first output that overflows: x[first_bad] reaches output first_bad of
    an inclusive scan and output first_bad + 1 of an exclusive one; a text file's line is x[first_bad]'s."""
    element = first_bad + 1 if exclusive else first_bad
    try:
        err = case.run_bad(args + ["--out", "prefix.txt"], inputs=[name])
    except Failure as e:
        raise Failure("%s: its sums overflow at element %d: %s" % (what, element, e))
    where = "%s:%d:" % (name, lines[first_bad]) if lines else name + ":"
    if not re.search(r"\bat element %d\b" % element, err) or where not in err:
        raise Failure("%s: x[%d] makes output %d overflow, so the error must say 'at element %d' and %r: %s" % (
            what, first_bad, element, element, where, err.strip()))


def check_output(case, what, type_name, expected, bounds):
    n = len(expected)
    got = read_output(case, type_name, "prefix.txt")
    if len(got) != n:
        raise Failure("%s: --out holds %d values, expected %d" % (what, len(got), n))
    for i, (g, e) in enumerate(zip(got, expected)):
        if (g != e) if bounds is None else abs(g - e) > bounds[i]:
            raise Failure("%s: element %d is %s, expected %s%s" % (
                what, i, g if bounds is None else float(g), e if bounds is None else float(e),
                "" if bounds is None else " within %.3g" % float(bounds[i])))


def only_total_overflows(case):
    """Sums whose only overflow is in the last value, for every type: the exclusive scan must write them all (within
    the float bound), the inclusive scan must be refused at the last element."""
    rng = case.rng
    type_name = rng.choice(["i32", "i64", "f32", "f64"])
    n = rng.choice([2, 3, 5, rng.randint(2, 300)])
    if type_name in INTS:
        x = draw_ints(rng, type_name, n, "only-total-overflows")
    else:
        x = draw_floats(rng, type_name, n, "only-total-overflows")
    name, lines = write_input(case, type_name, x, rng.random() < 0.3)
    args = ["--input", name, "--type", type_name, "--impl", rng.choice(IMPLS + ["all"])]
    expected, bounds, first_bad = reference(type_name, x, True)
    assert first_bad is None
    what = "%s exclusive scan of %d values whose written sums fit but whose unwritten total overflows" % (
        type_name, n)
    try:
        case.run_ok(args + ["--exclusive", "--out", "prefix.txt"])
    except Failure as e:
        raise Failure("%s: %s" % (what, e))
    check_output(case, what, type_name, expected, bounds)
    _, _, first_bad = reference(type_name, x, False)
    assert first_bad == n - 1
    expect_overflow(case, "%s inclusive scan of the same %d values" % (type_name, n), args, name, lines, n - 1, False)


BAD_TOKENS = {
    "i32": ["abc", "1.5", "1e3", "3000000000", "-2147483649", "1 2", "0x10", "nan"],
    "i64": ["abc", "2.5", "9223372036854775808", "-9223372036854775809", "1 2", "--1"],
    "f32": ["abc", "nan", "inf", "-inf", "1e39", "-4e38", "1 2", "1..2"],
    "f64": ["abc", "nan", "inf", "1e400", "-1e309", "1 2", "1,5"],
}


def malformed_line(case):
    """A text file with one bad line among good ones: exit 2 naming that line, no output."""
    rng = case.rng
    type_name = rng.choice(list(BAD_TOKENS))
    n = rng.randint(1, 200)
    x = [str(rng.randint(-100, 100)) for _ in range(n)]
    bad_at = rng.randrange(n)
    x[bad_at] = rng.choice(BAD_TOKENS[type_name])
    lines = write_text_lines(case.path("values.txt"), x, rng)
    try:
        case.run_bad(["--input", "values.txt", "--type", type_name, "--impl", rng.choice(IMPLS), "--out", "prefix.txt"],
                     fragments=["values.txt:%d:" % lines[bad_at]], inputs=["values.txt"])
    except Failure as e:
        raise Failure("%s value %r on line %d: %s" % (type_name, x[bad_at], lines[bad_at], e))


def bad_raw_file(case):
    """A raw file of a size that is not a whole number of values, or a float file holding NaN or Inf."""
    rng = case.rng
    type_name = rng.choice(["i32", "i64", "f32", "f64"])
    size = 4 if type_name.endswith("32") else 8
    name = "values." + type_name
    if type_name in FLOATS and rng.random() < 0.5:
        x = np.ones(rng.randint(1, 50), dtype=FLOATS[type_name])
        at = rng.randrange(len(x))
        x[at] = rng.choice([np.nan, np.inf, -np.inf])
        x.tofile(case.path(name))
        fragments = [name + ":", "element %d" % at]
    else:
        with open(case.path(name), "wb") as f:
            f.write(bytes(size * rng.randint(0, 10) + rng.randint(1, size - 1)))
        fragments = [name]
    case.run_bad(["--input", name, "--out", "prefix.txt"], fragments=fragments, inputs=[name])


def out_names_input(case):
    rng = case.rng
    type_name = rng.choice(["i32", "f64"])
    name, _ = write_input(case, type_name, [1, 2, 3][: rng.randint(0, 3)], rng.random() < 0.3)
    output_names_input(case, ["--input", name, "--impl", rng.choice(IMPLS)], name, "--out")


CLASSES = [
    ("random values", 10, scan_case),
    ("only the total overflows", 2, only_total_overflows),
    ("malformed line", 2, malformed_line),
    ("bad raw file", 1, bad_raw_file),
    ("--out names the input", 1, out_names_input),
]

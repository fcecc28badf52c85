"""dpt-spmv against y = A*x in exact rational arithmetic.

Random Matrix Market files: real, integer or pattern; general, symmetric or skew-symmetric (entries in either
triangle, mirrored); repeated entries, which are summed; empty rows; 0x0, 1x1 and non-square sizes; comments,
blank lines and CRLF. x comes from an `array` file (--x) or is all ones. In --precision double or float every y_i
must lie within README's bound gamma_(n+2) * sum |a||x| of the exact sum of the entries and x as that precision
holds them (n: the row's entries before duplicates are summed). A row whose positive or negative terms clearly
sum past the precision's range must exit 2 naming that row. Malformed files (bad header, an index out of range,
too few or too many entries, a bad token, NaN, a non-zero skew diagonal, an x of the wrong length) must exit 2
naming the file and line, and an --out naming the matrix or x must be refused."""
from fractions import Fraction

import numpy as np

from common import Failure, gamma, output_names_input

PRECISIONS = {"double": (np.float64, 53), "float": (np.float32, 24)}


def draw_matrix(rng, kind):
    """(rows, cols, field, symmetry, [(i, j, value)] 0-based)."""
    symmetry = rng.choice(["general", "general", "symmetric", "skew-symmetric"])
    field = rng.choice(["real", "real", "integer", "pattern"])
    if symmetry == "skew-symmetric" and field == "pattern":
        field = "real"
    if kind == "tiny":
        rows = rng.choice([0, 1, 2])
        cols = rows if symmetry != "general" else rng.choice([0, 1, 2])
    else:
        rows = rng.randint(1, 60) if rng.random() < 0.9 else rng.randint(60, 600)
        cols = rows if symmetry != "general" else max(1, int(rows * rng.uniform(0.3, 3)))
    scale = 10.0 ** rng.randint(-5, 5)
    entries = []
    nnz = 0 if rows * cols == 0 else rng.randint(0, min(rows * cols * 2, 4000))
    for _ in range(nnz):
        if entries and rng.random() < 0.15:
            i, j, _ = rng.choice(entries)  # a repeated entry
        else:
            i = rng.randrange(rows)
            i = rng.choice([i, rng.randrange(rows)]) if rng.random() < 0.3 else i  # some rows stay empty
            j = rng.randrange(cols)
        if symmetry == "skew-symmetric" and i == j:
            continue
        if symmetry != "general" and i < j and rng.random() < 0.9:
            i, j = j, i  # mostly the lower triangle, as the format stores it; the upper one is mirrored too
        value = 1.0 if field == "pattern" else float(rng.randint(-1000, 1000)) if field == "integer" else \
            rng.uniform(-1, 1) * scale
        entries.append((i, j, value))
    return rows, cols, field, symmetry, entries


def matrix_text(rng, rows, cols, field, symmetry, entries, declared=None):
    """The file's lines (without line ends) and the line number (1-based) of each entry."""
    lines = ["%%%%MatrixMarket matrix coordinate %s %s" % (field, symmetry)]
    if rng.random() < 0.5:
        lines += ["% made by tests/differential/spmv.py"] + (["", "%"] if rng.random() < 0.3 else [])
    lines.append("%d %d %d" % (rows, cols, len(entries) if declared is None else declared))
    at = []
    for i, j, v in entries:
        if rng.random() < 0.03:
            lines.append(rng.choice(["", "% a comment between entries"]))
        token = "" if field == "pattern" else " %d" % v if field == "integer" else " %r" % v
        lines.append("%d %d%s" % (i + 1, j + 1, token))
        at.append(len(lines))
    return lines, at


def write_lines(case, name, lines):
    end = "\r\n" if case.rng.random() < 0.2 else "\n"
    with open(case.path(name), "w", newline="") as f:
        f.write(end.join(lines) + end)


def vector_lines(x):
    return ["%%MatrixMarket matrix array real general", "%d 1" % len(x)] + ["%r" % v for v in x]


def expand(symmetry, entries):
    for i, j, v in entries:
        yield i, j, v
        if symmetry != "general" and i != j:
            yield j, i, v if symmetry == "symmetric" else -v


def reference(rows, symmetry, entries, x, precision):
    """Exact y, and each row's bound, for A and x rounded to the precision."""
    dtype, bits = PRECISIONS[precision]
    held = lambda v: Fraction(float(dtype(v)))  # noqa: E731
    y, magnitude, terms = [Fraction(0)] * rows, [Fraction(0)] * rows, [0] * rows
    for i, j, v in expand(symmetry, entries):
        term = held(v) * held(x[j])
        y[i] += term
        magnitude[i] += abs(term)
        terms[i] += 1
    u = Fraction(1, 2 ** bits)
    return y, [gamma(terms[i] + 2, u) * magnitude[i] for i in range(rows)]


def read_vector(path):
    with open(path) as f:
        lines = [line.strip() for line in f if line.strip() and not line.startswith("%")]
    size = [int(t) for t in lines[0].split()]
    return size, [float(t) for t in lines[1:]]


def random_product(case):
    rng = case.rng
    rows, cols, field, symmetry, entries = draw_matrix(rng, rng.choice(["tiny", "random", "random", "random"]))
    lines, _ = matrix_text(rng, rows, cols, field, symmetry, entries)
    write_lines(case, "a.mtx", lines)
    precision = rng.choice(["double", "float"])
    args = ["a.mtx", "--repeat", "1", "--precision", precision, "--out", "y.mtx"]
    if rng.random() < 0.8:
        x = [rng.uniform(-1, 1) * 10.0 ** rng.randint(-3, 3) for _ in range(cols)]
        write_lines(case, "x.mtx", vector_lines(x))
        args += ["--x", "x.mtx"]
    else:
        x = [1.0] * cols
        args += rng.choice([["--x-ones"], []])
    what = "%dx%d %s %s matrix, %d stored entries, %s" % (rows, cols, field, symmetry, len(entries), precision)
    try:
        case.run_ok(args)
    except Failure as e:
        raise Failure("%s: %s" % (what, e))
    y, bound = reference(rows, symmetry, entries, x, precision)
    size, got = read_vector(case.path("y.mtx"))
    if size != [rows, 1] or len(got) != rows:
        raise Failure("%s: y.mtx is %s with %d values, expected %d x 1" % (what, size, len(got), rows))
    for i in range(rows):
        if abs(Fraction(got[i]) - y[i]) > bound[i]:
            raise Failure("%s: y[%d] (row %d) is %r, exact %r, bound %.3g" % (
                what, i, i + 1, got[i], float(y[i]), float(bound[i])))


def overflowing_row(case):
    """Terms of one row that sum past the precision's range (clearly: 3 of at least 0.6 of its largest value)."""
    rng = case.rng
    precision = rng.choice(["double", "float"])
    largest = float(np.finfo(PRECISIONS[precision][0]).max)
    rows, cols = rng.randint(1, 30), rng.randint(3, 30)
    entries = [(rng.randrange(rows), rng.randrange(cols), rng.uniform(-1, 1)) for _ in range(rng.randint(0, 50))]
    bad, sign = rng.randrange(rows), rng.choice([1, -1])
    for _ in range(rng.randint(3, 5)):
        entries.insert(rng.randrange(len(entries) + 1),
                       (bad, rng.randrange(cols), sign * float(PRECISIONS[precision][0](largest * rng.uniform(0.6, 0.9)))))
    lines, _ = matrix_text(rng, rows, cols, "real", "general", entries)
    write_lines(case, "a.mtx", lines)
    try:
        case.run_bad(["a.mtx", "--repeat", "1", "--precision", precision, "--out", "y.mtx"],
                     fragments=["a.mtx: row %d of y = A*x overflows" % (bad + 1)], inputs=["a.mtx"])
    except Failure as e:
        raise Failure("row %d's %s terms sum past %s's range: %s" % (
            bad + 1, "positive" if sign > 0 else "negative", precision, e))


def malformed_file(case):
    """One defect in an otherwise good file; the error must name the file and the defect's line."""
    rng = case.rng
    defect = rng.choice(["header", "index out of range", "index 0", "too few entries", "too many entries",
                         "not a number", "trailing token", "NaN", "skew diagonal", "x of the wrong length"])
    rows, cols, field, symmetry, entries = draw_matrix(rng, "random")
    while not entries:
        rows, cols, field, symmetry, entries = draw_matrix(rng, "random")
    k = rng.randrange(len(entries))
    if defect == "skew diagonal":  # a skew-symmetric matrix whose entry k is on the diagonal, not 0
        rows = cols = max(rows, 2)
        field, symmetry = "real", "skew-symmetric"
        entries = [(max(i, j) % rows, min(i, j) % rows, v) for i, j, v in entries]
        entries = [(i, j, v) if i != j else (rows - 1, 0, v) for i, j, v in entries]
        entries[k] = (k % rows, k % rows, rng.choice([1.0, -2.5]))
    declared = {"too few entries": len(entries) + rng.randint(1, 3), "too many entries": len(entries) - 1}.get(defect)
    lines, at = matrix_text(rng, rows, cols, field, symmetry, entries, declared)
    i, j, _ = entries[k]
    value = "" if field == "pattern" else " 1"
    x_name, fragment = None, "a.mtx:%d:" % at[k]
    if defect == "header":
        lines[0] = rng.choice(["%%MatrixMarket matrix coordinate complex general",
                               "%%MatrixMarket matrix coordinat real general",
                               "%MatrixMarket matrix coordinate real general",
                               "%%MatrixMarket matrix coordinate pattern skew-symmetric",
                               "%%MatrixMarket tensor coordinate real general"])
        fragment = "a.mtx:1:"
    elif defect == "index out of range":
        lines[at[k] - 1] = "%d %d" % ((rows + 1, j + 1) if rng.random() < 0.5 else (i + 1, cols + 1)) + value
    elif defect == "index 0":
        lines[at[k] - 1] = "%d %d" % ((0, j + 1) if rng.random() < 0.5 else (i + 1, 0)) + value
    elif defect == "too many entries":
        fragment = "a.mtx:%d:" % at[-1]
    elif defect == "too few entries":
        fragment = "a.mtx:"  # the line it names is past the last entry
    elif defect in ("not a number", "trailing token", "NaN"):
        token = {"not a number": " x1", "trailing token": value + " 7", "NaN": " nan"}[defect]
        if field == "pattern":
            token = " 1"  # a pattern entry has no value: any value is a trailing token
        lines[at[k] - 1] = "%d %d%s" % (i + 1, j + 1, token)
    elif defect == "x of the wrong length":
        x_name, fragment = "x.mtx", "x.mtx:"
        write_lines(case, x_name, vector_lines([0.5] * (cols + rng.choice([-1, 1, 2]))))
    write_lines(case, "a.mtx", lines)
    args = ["a.mtx", "--repeat", "1", "--out", "y.mtx"] + (["--x", x_name] if x_name else [])
    try:
        case.run_bad(args, fragments=[fragment], inputs=["a.mtx"] + ([x_name] if x_name else []))
    except Failure as e:
        raise Failure("%s: %s" % (defect, e))


def out_names_input(case):
    rng = case.rng
    rows, cols, field, symmetry, entries = draw_matrix(rng, "tiny")
    write_lines(case, "a.mtx", matrix_text(rng, rows, cols, field, symmetry, entries)[0])
    write_lines(case, "x.mtx", vector_lines([1.0] * cols))
    name = rng.choice(["a.mtx", "x.mtx"])
    output_names_input(case, ["a.mtx", "--repeat", "1", "--x", "x.mtx"], name, "--out")


CLASSES = [
    ("random matrix", 12, random_product),
    ("overflowing row", 2, overflowing_row),
    ("malformed file", 3, malformed_file),
    ("--out names an input", 1, out_names_input),
]

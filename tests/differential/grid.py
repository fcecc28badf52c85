"""dpt-grid against a brute-force grid and neighbour count in NumPy.

Random particles (CSV with spaces, blank lines and CRLF, or raw .f64/.f32) in random 2-D and 3-D grids, in double
or float precision, with a given --domain or the particles' bounding box. Each particle's cell is computed as
algorithms/dpt/grid.hpp defines it: t = (x - lower) / (upper - lower) * cells in the run's precision, clamped to
[0, cells - 1], truncated; so particles exactly on cell edges (a class of its own) have one right cell. Each
neighbour count is every other particle with sum d_a^2 <= R^2 in that precision (README), over all pairs. --cells-out
and --neighbors-out must match exactly. R is random up to the cell side, or the cell side as decimals say it
(--dims 3x3 --domain 0,0:0.3,0.3 --radius 0.1), or the side a few ulps up or down: the app must accept R while R in
the precision is at most the cell side (upper - lower) / cells in the precision rounded up by 4 ulps, along every
axis (largest_neighbor_radius in algorithms/dpt/grid_neighbors.hpp), and must refuse a larger R (exit 2). With
--clamp particles outside the domain go to the nearest cell; without it they, NaN and Inf must exit 2 naming the
particle (and its CSV line), as must a radius clearly above the cell side and an output naming the input."""
from decimal import Decimal

import numpy as np

from common import Failure, draw_size, output_names_input

REALS = {"double": np.float64, "float": np.float32}


def draw_grid(rng):
    dims = [rng.randint(1, 12) if rng.random() < 0.9 else rng.randint(12, 60) for _ in range(rng.choice([2, 3]))]
    lower = [rng.uniform(-10, 10) for _ in dims]
    upper = [lo + 10.0 ** rng.uniform(-1, 1.5) for lo in lower]
    return dims, lower, upper


def cells_of(p, dims, lower, upper, real):
    """Each particle's cell id, x fastest, computed as dpt::uniform_grid::cell_index does in the precision."""
    cell, stride = np.zeros(len(p), dtype=np.int64), 1
    for a, n in enumerate(dims):
        lo, hi, cells = real(lower[a]), real(upper[a]), real(n)
        t = (p[:, a] - lo) / (hi - lo) * cells
        t = np.where(t > 0, t, real(0))
        t = np.where(t < real(n - 1), t, real(n - 1))
        cell += t.astype(np.int64) * stride
        stride *= n
    return cell


def neighbour_counts(p, radius, real):
    """For each particle, the others with sum (q_a - p_a)^2 <= R^2, each operation rounded in the precision."""
    r2 = real(radius) * real(radius)
    counts = np.zeros(len(p), dtype=np.int64)
    for start in range(0, len(p), 256):
        block = p[start:start + 256]
        total = np.zeros((len(block), len(p)), dtype=real)
        for a in range(p.shape[1]):
            d = p[None, :, a] - block[:, None, a]
            total = total + d * d
        counts[start:start + 256] = (total <= r2).sum(axis=1) - 1  # not its own neighbour
    return counts


def bounding_box(p, real):
    """README's default domain: the box of the coordinates in the precision; an axis of one value widened."""
    lower, upper = [], []
    for a in range(p.shape[1]):
        if len(p) == 0:
            lo, hi = real(0), real(1)
        else:
            lo, hi = p[:, a].min(), p[:, a].max()
            if lo == hi:
                v = lo
                lo = min(v - real(0.5), np.nextafter(v, real(-np.inf)))
                hi = max(v + real(0.5), np.nextafter(v, real(np.inf)))
        lower.append(lo)
        upper.append(hi)
    return lower, upper


def write_particles(case, p, fmt):
    """Writes the particles (float64 array n x d); returns the file name and each particle's CSV line."""
    rng = case.rng
    if fmt != "csv":
        name = "particles." + fmt
        p.astype(np.float32 if fmt == "f32" else np.float64).tofile(case.path(name))
        return name, None
    end = "\r\n" if rng.random() < 0.2 else "\n"
    parts = ["x,y" if p.shape[1] == 2 else "x,y,z"]
    lines = []
    for row in p:
        while rng.random() < 0.02:
            parts.append("")
        sep = ", " if rng.random() < 0.1 else ","
        parts.append(sep.join(repr(float(v)) for v in row))
        lines.append(len(parts))
    with open(case.path("particles.csv"), "w", newline="") as f:
        f.write(end.join(parts) + end)
    return "particles.csv", lines


def domain_arg(lower, upper):
    return ["--domain", ",".join(map(repr, lower)) + ":" + ",".join(map(repr, upper))]


def read_counts(path):
    with open(path) as f:
        return np.array([int(t) for t in f.read().split()], dtype=np.int64)


def check_grid(case, what, args, p, dims, lower, upper, real, radius):
    """Runs ARGS with --cells-out (and --neighbors-out) and compares both with the brute-force answers."""
    args = args + ["--cells-out", "cells.txt"] + (["--neighbors-out", "neighbors.txt"] if radius else [])
    try:
        case.run_ok(args)
    except Failure as e:
        raise Failure("%s: %s" % (what, e))
    held = p.astype(real)
    expected = np.bincount(cells_of(held, dims, lower, upper, real), minlength=int(np.prod(dims)))
    got = read_counts(case.path("cells.txt"))
    if got.shape != expected.shape or np.any(got != expected):
        wrong = np.nonzero(got != expected)[0] if got.shape == expected.shape else [0]
        raise Failure("%s: --cells-out has %d counts, %d differ; cell %d: %s, expected %d" % (
            what, len(got), len(wrong), wrong[0], got[wrong[0]] if len(got) > wrong[0] else "none", expected[wrong[0]]))
    if radius:
        expected = neighbour_counts(held, radius, real)
        got = read_counts(case.path("neighbors.txt"))
        if got.shape != expected.shape or np.any(got != expected):
            wrong = np.nonzero(got != expected)[0] if got.shape == expected.shape else [0]
            raise Failure("%s: --neighbors-out has %d counts, %d differ; particle %d: %s, expected %d" % (
                what, len(got), len(wrong), wrong[0], got[wrong[0]] if len(got) > wrong[0] else "none",
                expected[wrong[0]]))


def random_particles(case, on_edges=False, clamp=False):
    rng = case.rng
    nprng = np.random.default_rng(rng.getrandbits(64))
    dims, lower, upper = draw_grid(rng)
    precision, fmt = rng.choice(list(REALS)), rng.choice(["csv", "csv", "f64", "f32"])
    real = REALS[precision]
    n = draw_size(rng, 1500, 4000)
    p = nprng.uniform(lower, upper, (n, len(dims)))
    if on_edges:  # cell edges as lower + k * side, some exactly the domain's bounds, on random axes
        for a, cells in enumerate(dims):
            on = nprng.random(n) < 0.5
            k = nprng.integers(0, cells + 1, n)
            p[on, a] = lower[a] + k[on] * ((upper[a] - lower[a]) / cells)
    if clamp:
        out = nprng.random(n) < 0.2
        p[out] = nprng.uniform(np.subtract(lower, 5), np.add(upper, 5), (int(out.sum()), len(dims)))
    if fmt == "f32":
        p = p.astype(np.float32).astype(np.float64)  # what the file holds
    given_domain = clamp or rng.random() < 0.7
    if given_domain:
        lower_r, upper_r = [real(v) for v in lower], [real(v) for v in upper]
        if not clamp:  # the particles in the precision must lie inside the box in the precision
            held = p.astype(real)
            p = p[np.all((held >= lower_r) & (held <= upper_r), axis=1)]
    else:
        lower_r, upper_r = bounding_box(p.astype(real), real)
    name, _ = write_particles(case, p, fmt)
    side = min((real(upper_r[a]) - real(lower_r[a])) / real(dims[a]) for a in range(len(dims)))
    radius = float(side) * rng.uniform(0.05, 0.999) if rng.random() < 0.8 else None
    if radius is not None and not real(radius) * real(radius) >= np.finfo(real).tiny:
        radius = None
    args = ["--input", name, "--dims", "x".join(map(str, dims)), "--precision", precision]
    args += domain_arg(lower, upper) if given_domain else []
    args += ["--clamp"] if clamp else []
    args += ["--radius", repr(radius)] if radius else []
    args += ["--solution", rng.choice(["5", "all"])]
    what = "%d particles (%s) in %s cells, %s, %s%s%s" % (
        len(p), fmt, "x".join(map(str, dims)), precision, "given domain" if given_domain else "bounding box",
        ", on cell edges" if on_edges else "", ", clamped" if clamp else "")
    check_grid(case, what, args, p, dims, lower_r, upper_r, real, radius)


def largest_radius(lower, upper, dims, real):
    """The largest R the app takes (largest_neighbor_radius): along each axis the cell side (upper - lower) / cells
    computed in the precision, rounded up by 4 ulps; the least of those over the axes."""
    largest = []
    for lo, hi, n in zip(lower, upper, dims):
        side = (real(hi) - real(lo)) / real(n)
        for _ in range(4):
            side = np.nextafter(side, real(np.inf))
        largest.append(side)
    return min(largest)


def radius_accepted(radius, lower, upper, dims, real):
    """validate_neighbor_radius: 0 < R <= largest_radius, and R * R finite and normal, all in the precision."""
    r = real(radius)
    square = r * r
    return bool(0 < r <= largest_radius(lower, upper, dims, real) and np.isfinite(square)
                and square >= np.finfo(real).tiny)


def radius_is_cell_side(case):
    """R written as the cell side in decimals (--dims 3x3 --domain 0,0:0.3,0.3 --radius 0.1), or the side the app
    computes moved a few ulps up or down: README allows R up to the side. Bounds and R are rounded to the precision,
    so the side the app computes may fall below R by rounding; the app takes R up to that side rounded up by 4 ulps
    (radius_accepted), which must then run, and must refuse R beyond it (exit 2, naming --radius)."""
    rng = case.rng
    dim = rng.choice([2, 3])
    dims = [rng.randint(1, 10) for _ in range(dim)]
    side = Decimal(rng.randint(1, 99)) / Decimal(10) ** rng.randint(0, 3)
    # the side along one axis at least, wider along the others; the box from a multiple of its side near 0
    sides = [side if a == 0 or rng.random() < 0.5 else side * rng.randint(2, 4) for a in range(dim)]
    lower = [s * rng.randint(-2 * n, n) if rng.random() < 0.7 else Decimal(0) for s, n in zip(sides, dims)]
    upper = [lo + n * s for lo, n, s in zip(lower, dims, sides)]
    precision = rng.choice(list(REALS))
    real = REALS[precision]
    lo_r, hi_r = [real(float(v)) for v in lower], [real(float(v)) for v in upper]
    nprng = np.random.default_rng(rng.getrandbits(64))
    p = nprng.uniform([float(v) for v in lower], [float(v) for v in upper], (rng.randint(0, 400), dim))
    held = p.astype(real)
    p = p[np.all((held >= lo_r) & (held <= hi_r), axis=1)]
    name, _ = write_particles(case, p, "csv")
    radius = str(side)
    if rng.random() < 0.4:  # the side the app computes, ulps up or down (the text reads back as that value)
        nudged = min((hi - lo) / real(n) for lo, hi, n in zip(lo_r, hi_r, dims))
        for _ in range(rng.randint(0, 7)):
            nudged = np.nextafter(nudged, real(np.inf))
        for _ in range(rng.choice([0, 0, 0, 1, 2])):
            nudged = np.nextafter(nudged, real(-np.inf))
        radius = repr(float(nudged))
    args = ["--input", name, "--dims", "x".join(map(str, dims)), "--precision", precision, "--radius", radius,
            "--domain", ",".join(map(str, lower)) + ":" + ",".join(map(str, upper))]
    what = "--radius %s, the cell side of --dims %s --domain %s (sides %s), %s" % (
        radius, args[3], args[-1], ", ".join(map(str, sides)), precision)
    if not radius_accepted(float(radius), lo_r, hi_r, dims, real):
        try:
            case.run_bad(args + ["--cells-out", "cells.txt"], fragments=["--radius"], inputs=[name])
        except Failure as e:
            raise Failure("%s: the radius is above the largest, %r: %s" % (
                what, float(largest_radius(lo_r, hi_r, dims, real)), e))
        return
    check_grid(case, what, args, p, dims, lo_r, hi_r, real, float(radius))


def bad_particles(case):
    """A NaN, Inf or out-of-domain particle (without --clamp), a coordinate beyond float's range in float precision,
    a radius above the cell side, or two outputs naming one file: exit 2, naming the particle's CSV line (or the
    particle's number in a raw file) where there is one."""
    rng = case.rng
    dims, lower, upper = draw_grid(rng)
    n = rng.randint(1, 300)
    p = np.random.default_rng(rng.getrandbits(64)).uniform(lower, upper, (n, len(dims)))
    fmt = rng.choice(["csv", "f64", "f32"])
    defect = rng.choice(["NaN", "Inf", "outside", "beyond float", "radius above the cell side",
                         "outputs naming one file"])
    at = rng.randrange(n)
    args = ["--dims", "x".join(map(str, dims))] + domain_arg(lower, upper)
    if defect == "beyond float":  # in --precision float, a coordinate that float cannot hold
        fmt = rng.choice(["csv", "f64"])
        args += ["--precision", "float"]
        p[at, rng.randrange(len(dims))] = rng.choice([1e39, -3.5e38, 1e300])
    if defect in ("NaN", "Inf", "outside"):
        a = rng.randrange(len(dims))
        width = upper[a] - lower[a]
        p[at, a] = {"NaN": np.nan, "Inf": rng.choice([np.inf, -np.inf]),
                    "outside": rng.choice([lower[a] - width * rng.uniform(0.01, 1), upper[a] + width * rng.uniform(
                        0.01, 1)])}[defect]
    name, lines = write_particles(case, p, fmt)
    args = ["--input", name] + args + ["--cells-out", "cells.txt"]
    fragments = ["%s:%d:" % (name, lines[at])] if lines else ["particle %d" % at]
    if defect == "radius above the cell side":
        side = min((u - lo) / c for lo, u, c in zip(lower, upper, dims))
        args += ["--radius", repr(side * rng.uniform(1.05, 3))]
        fragments = ["--radius"]
    elif defect == "outputs naming one file":
        args += ["--radius", repr(min((u - lo) / c for lo, u, c in zip(lower, upper, dims)) / 2),
                 "--neighbors-out", "cells.txt"]
        fragments = []
    try:
        case.run_bad(args, fragments=fragments, inputs=[name])
    except Failure as e:
        raise Failure("%s (%s, particle %d): %s" % (defect, fmt, at, e))


def out_names_input(case):
    rng = case.rng
    dims, lower, upper = draw_grid(rng)
    p = np.random.default_rng(rng.getrandbits(64)).uniform(lower, upper, (rng.randint(0, 20), len(dims)))
    name, _ = write_particles(case, p, rng.choice(["csv", "f64", "f32"]))
    args = ["--input", name, "--dims", "x".join(map(str, dims))] + domain_arg(lower, upper)
    option = rng.choice(["--cells-out", "--neighbors-out", "--png"])
    if option == "--neighbors-out":
        args += ["--radius", repr(min((u - lo) / c for lo, u, c in zip(lower, upper, dims)) / 2)]
    output_names_input(case, args, name, option)


CLASSES = [
    ("random particles", 10, random_particles),
    ("particles on cell edges", 3, lambda case: random_particles(case, on_edges=True)),
    ("--clamp, particles outside", 2, lambda case: random_particles(case, clamp=True)),
    ("radius = cell side", 3, radius_is_cell_side),
    ("bad particles or options", 3, bad_particles),
    ("an output names the input", 1, out_names_input),
]

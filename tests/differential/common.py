"""What every app's differential test shares: running the app in a case's folder, the promises every app makes
about bad input (README "What every app promises": exit 2, one line `PROGRAM: error: ...`, no output file, not even
a temporary), the check that an output naming an input is refused, and small generators (sizes, text files with
blank lines, spaces and CRLF line ends)."""
import os
import shlex
import subprocess
from fractions import Fraction

PRIMES = [2, 3, 5, 7, 31, 127, 257, 1021, 2039, 4093]
APP_TIMEOUT_S = 60  # a case is meant to take well under a second; past this the app is taken to hang
# OpenMP threads that sleep rather than spin while they wait: the same threads and results, but on a loaded machine
# (ctest -j, two cores) spinning threads made a 10 ms run take seconds
APP_ENV = dict(os.environ, OMP_WAIT_POLICY=os.environ.get("OMP_WAIT_POLICY", "PASSIVE"))


class Failure(Exception):
    """The app broke a promise; the message says what differs."""


class NoDevice(Exception):
    """A CUDA build of the app found no GPU: the test is skipped (exit 77, as the other app tests do)."""


class Case:
    """One random case: its seed, its random source, its folder, and the app it drives."""

    def __init__(self, app, seed, rng, folder):
        self.app, self.seed, self.rng, self.dir = app, seed, rng, folder
        self.program = os.path.basename(app)
        self.commands = []  # every command run, for the failure report

    def path(self, name):
        return os.path.join(self.dir, name)

    def run(self, args):
        """Runs the app with ARGS (file names relative to the case's folder); returns (status, stdout, stderr)."""
        self.commands.append("cd %s && %s" % (shlex.quote(self.dir), shlex.join([self.app] + list(args))))
        try:
            done = subprocess.run([self.app] + list(args), cwd=self.dir, capture_output=True, text=True,
                                  errors="replace", timeout=APP_TIMEOUT_S, env=APP_ENV)
        except subprocess.TimeoutExpired:
            raise Failure("the app ran for more than %d s" % APP_TIMEOUT_S)
        if "error: no CUDA device" in done.stderr:
            raise NoDevice()
        return done.returncode, done.stdout, done.stderr

    def run_ok(self, args):
        status, out, err = self.run(args)
        if status != 0:
            raise Failure("exit status %d, expected 0: %s" % (status, err.strip()[:400]))
        return out

    def run_bad(self, args, fragments=(), inputs=()):
        """Runs ARGS expecting bad input: exit 2, one line on stderr holding every fragment, no new file in the
        folder, every input byte-identical."""
        before = snapshot(self.dir)
        saved = {name: read_bytes(self.path(name)) for name in inputs}
        status, _, err = self.run(args)
        problems = []
        if status != 2:
            problems.append("exit status %d, expected 2" % status)
        lines = err.splitlines()
        if len(lines) != 1 or not lines[0].startswith(self.program + ": error: "):
            problems.append("stderr is not one line '%s: error: ...'" % self.program)
        problems += ["stderr lacks %r" % f for f in fragments if f not in err]
        after = snapshot(self.dir)
        problems += ["left %s behind" % name for name in sorted(set(after) - set(before))]
        problems += ["changed the input %s" % name for name in inputs if read_bytes(self.path(name)) != saved[name]]
        if problems:
            raise Failure("; ".join(problems) + " (stderr: %s)" % err.strip()[:400])
        return err


def snapshot(folder):
    return os.listdir(folder)


def read_bytes(path):
    with open(path, "rb") as f:
        return f.read()


def output_names_input(case, args, input_name, out_option):
    """An output that names the input (as given, through ./, through a symbolic link or through a hard link) must be
    refused: exit 2, the input byte-identical, nothing written. ARGS is a valid run without the output. The apps
    compare files by device and inode (apps/app_support/output_file.cpp), so a hard link, another name of the same
    file, is refused like the rest."""
    way = case.rng.choice(["same path", "./path", "symbolic link", "hard link"])
    target = input_name
    if way == "./path":
        target = "./" + input_name
    elif way == "symbolic link":
        target = "link-to-input"
        os.symlink(input_name, case.path(target))
    elif way == "hard link":
        target = "hardlink-to-input"
        os.link(case.path(input_name), case.path(target))
    try:
        case.run_bad(args + [out_option, target], inputs=[input_name])
    except Failure as e:
        raise Failure("%s naming the input %s (%s): %s" % (out_option, input_name, way, e))


def draw_size(rng, small=3000, large=30000):
    """0, 1, 2, a prime, up to SMALL, and now and then up to LARGE."""
    kind = rng.random()
    if kind < 0.15:
        return rng.choice([0, 1, 2])
    if kind < 0.35:
        return rng.choice(PRIMES)
    if kind < 0.93:
        return rng.randint(0, small)
    return rng.randint(small, large)


def write_text_lines(path, tokens, rng, messy=None):
    """Writes one token per line; a messy file (chosen at random unless MESSY is given) has blank lines, spaces
    around tokens and CRLF line ends. Returns the 1-based line of each token."""
    if messy is None:
        messy = rng.random() < 0.4
    crlf = messy and rng.random() < 0.5
    end = "\r\n" if crlf else "\n"
    parts, lines, line = [], [], 0
    for token in tokens:
        while messy and rng.random() < 0.05:
            parts.append(rng.choice(["", " ", "\t"]) + end)
            line += 1
        if messy and rng.random() < 0.1:
            token = rng.choice([" ", "\t"]) + token + rng.choice(["", " "])
        parts.append(token + end)
        line += 1
        lines.append(line)
    with open(path, "w", newline="") as f:
        f.write("".join(parts))
    return lines


def gamma(n, u):
    """Higham's gamma_n = n*u / (1 - n*u), as a Fraction (u: the unit roundoff)."""
    nu = Fraction(n) * u
    assert nu < 1
    return nu / (1 - nu)

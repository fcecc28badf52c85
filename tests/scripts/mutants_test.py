#!/usr/bin/env python3
"""scripts/mutants on a made-up project whose answers are known: a tiny CMake tree with a function, a test of it, and
a list of four mutants (one the test catches, one it misses, one that hangs, one that does not compile); then
the list checks that catch a list gone stale. Last, the project's own tests/mutants.txt must pass --check.

    tests/scripts/mutants_test.py
"""
import os
import subprocess
import sys
import tempfile

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..")
MUTANTS = os.path.join(ROOT, "scripts", "mutants")
failures = []


def expect(condition, what):
    if not condition:
        failures.append(what)
        print(f"FAILED: {what}")


def write(path, text):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w", encoding="utf-8") as f:
        f.write(text)


def mutants(root, *args):
    return subprocess.run([sys.executable, MUTANTS, "--root", root, "--list", os.path.join(root, "mutants.txt"),
                           *args], capture_output=True, text=True)


PRESETS = """{"version": 6, "configurePresets": [{"name": "omp", "generator": "Ninja",
 "binaryDir": "${sourceDir}/build/${presetName}", "cacheVariables": {"CMAKE_BUILD_TYPE": "Release"}}],
 "testPresets": [{"name": "omp", "configurePreset": "omp", "environment": {"MADE_UP_SOURCE": "${sourceDir}"}}]}
"""
CMAKE = """cmake_minimum_required(VERSION 3.25)
project(made_up CXX)
add_executable(test_clamp test_clamp.cpp)
"""
CLAMP = """#pragma once
inline int clamp_to(int x, int lo, int hi) {
  if (x < lo) return lo;
  if (x > hi) return hi;
  return x;
}
"""
# Checks the low side only, so a bug on the high side goes unseen. It runs in its test preset's environment, with
# ${sourceDir} the copy's root, or it fails. Given a filter, it answers as Catch2 2 does for one that matches
# nothing: it says so and exits 0.
TEST = """#include <cstdio>
#include <cstdlib>
#include <cstring>
#include "clamp.hpp"
int main(int argc, char** argv) {
  if (argc > 1) return std::printf("No test cases matched '%s'\\nNo tests ran\\n", argv[1]) < 0;
  const char* source = std::getenv("MADE_UP_SOURCE");
  if (!source || !std::strstr(source, "/build/mutants/src")) return 2;
  return clamp_to(-5, 0, 10) == 0 && clamp_to(5, 0, 10) == 5 ? 0 : 1;
}
"""
LIST = """# A list as scripts/mutants reads it.
## the low side returns x
file: clamp.hpp
from: if (x < lo) return lo;
to: if (x < lo) return x;
target: test_clamp
run: ./test_clamp
expect: main

## the high side returns x
file: clamp.hpp
from: if (x > hi) return hi;
to: if (x > hi) return x;
target: test_clamp
run: ./test_clamp

## the function never returns
file: clamp.hpp
from: return x;
to: for (;;) {}
target: test_clamp
run: ./test_clamp

## a typo
file: clamp.hpp
from: inline int
to: inlin int
target: test_clamp
run: ./test_clamp
"""


def main():
    with tempfile.TemporaryDirectory() as root:
        for name, text in [("CMakePresets.json", PRESETS), ("CMakeLists.txt", CMAKE), ("clamp.hpp", CLAMP),
                           ("test_clamp.cpp", TEST), ("mutants.txt", LIST), (".gitignore", "/build/\n")]:
            write(os.path.join(root, name), text)
        subprocess.run(["git", "init", "-q", root], check=True)

        # The whole sweep; the hanging mutant is stopped after 2 s.
        report = os.path.join(root, "report.md")
        run = mutants(root, "--report", report, "--min-timeout", "2")
        out = run.stdout
        expect(run.returncode == 1, f"a sweep with a survivor exits 1, not {run.returncode}: {run.stderr}")
        expect("passes in" in out, "the baseline run is reported")
        expect("killed              the low side returns x" in out, f"the caught mutant is killed:\n{out}")
        expect("SURVIVED            the high side returns x" in out, "the missed mutant survives")
        expect("killed (timed out)  the function never returns" in out, "the hanging mutant times out")
        expect("did not compile     a typo" in out, "the mutant that does not compile says so")
        expect("2 of 4 killed" in out, "the summary counts the killed mutants")
        with open(os.path.join(root, "clamp.hpp"), encoding="utf-8") as f:
            expect(f.read() == CLAMP, "the tree itself is never mutated")
        with open(os.path.join(root, "build", "mutants", "src", "clamp.hpp"), encoding="utf-8") as f:
            expect(f.read() == CLAMP, "the copy is restored after each mutant")
        with open(report, encoding="utf-8") as f:
            expect("| the high side returns x | `clamp.hpp` | `./test_clamp` | SURVIVED |" in f.read(),
                   "the report has a row per mutant")
        run = mutants(root, "--only", "low side")
        expect(run.returncode == 0 and "1 of 1 killed" in run.stdout, "--only picks mutants by title")
        run = mutants(root, "--only", "low side", "--only", "high side")
        expect(run.returncode == 1 and "1 of 2 killed" in run.stdout, "--only, repeated, picks every title it names")
        run = mutants(root, "--preset", "omp", "--only", "low side")
        expect(run.returncode == 0 and "1 of 1 killed" in run.stdout, "--preset picks mutants by preset")
        run = mutants(root, "--preset", "tbb")
        expect(run.returncode == 2 and "no mutant has a title and preset" in run.stderr,
               f"a --preset no mutant has is an error: {run.returncode} {run.stderr}")

        # A sweep killed hard (SIGKILL) leaves its mutant in the copy, built: the next sweep's copy must be rebuilt
        # from the tree's file, though that file is older than the mutant's build.
        copy = os.path.join(root, "build", "mutants", "src")
        write(os.path.join(copy, "clamp.hpp"), CLAMP.replace("return lo;", "return x;"))
        subprocess.run(["cmake", "--build", os.path.join(copy, "build", "omp")], check=True, capture_output=True)
        run = mutants(root, "--only", "low side")
        expect(run.returncode == 0 and "1 of 1 killed" in run.stdout,
               f"a mutant left in the copy is rebuilt away: {run.returncode} {run.stderr}")

        # A baseline that fails stops the sweep before any mutant.
        write(os.path.join(root, "test_clamp.cpp"), TEST.replace("== 5", "== 6"))
        run = mutants(root, "--only", "low side")
        expect(run.returncode == 2 and "unmutated omp build fails './test_clamp'" in run.stderr,
               f"a failing baseline exits 2: {run.returncode} {run.stderr}")
        write(os.path.join(root, "test_clamp.cpp"), TEST)

        # A run whose filter matches no test passes without testing anything: the baseline stops the sweep there.
        write(os.path.join(root, "mutants.txt"), LIST.replace("run: ./test_clamp\nexpect: main",
                                                              "run: ./test_clamp \"clamps, low\"\nexpect: main"))
        run = mutants(root, "--only", "low side")
        expect(run.returncode == 2 and "matches no test (No test cases matched 'clamps, low')" in run.stderr,
               f"a run that matches no test is an error, not a survivor: {run.returncode} {run.stderr}")
        write(os.path.join(root, "mutants.txt"), LIST)

        # Lists gone stale: each is an error naming the list's line, and --check exits 2.
        stale = {
            "the 'from' text occurs 0 times in clamp.hpp": LIST.replace("from: inline int", "from: inline long"),
            "the 'from' text occurs 3 times in clamp.hpp": LIST.replace("from: return x;", "from: return"),
            "lacks target": LIST.replace("target: test_clamp\nrun: ./test_clamp\nexpect", "run: ./test_clamp\nexpect"),
            "expected 'FIELD: value'": LIST.replace("expect: main", "expected: main"),
            "the title 'a typo' is used twice": LIST + LIST[LIST.index("## a typo"):],
            "no file clamp.cpp": LIST.replace("file: clamp.hpp\nfrom: inline", "file: clamp.cpp\nfrom: inline"),
        }
        for message, text in stale.items():
            write(os.path.join(root, "mutants.txt"), text)
            run = mutants(root, "--check")
            expect(run.returncode == 2 and message in run.stderr and "mutants.txt:" in run.stderr,
                   f"a stale list is reported ({message}): {run.returncode} {run.stderr}")
        write(os.path.join(root, "mutants.txt"), LIST)
        run = mutants(root, "--check")
        expect(run.returncode == 0 and "4 mutants" in run.stdout, f"a sound list passes --check: {run.stderr}")

    # The project's own list still fits the code.
    run = subprocess.run([sys.executable, MUTANTS, "--check"], capture_output=True, text=True)
    expect(run.returncode == 0, f"tests/mutants.txt passes --check:\n{run.stderr}")

    print(f"mutants_test: {len(failures)} failed")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())

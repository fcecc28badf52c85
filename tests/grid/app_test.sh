#!/usr/bin/env bash
# dpt-grid end to end: bad input exits 2 with one line naming the file and line and leaves no output file;
# good input writes --cells-out and --neighbors-out exactly as worked out by hand.
#   usage: app_test.sh PATH/TO/dpt-grid PATH/TO/tests/grid/data
set -uo pipefail
app=$1
data=$2
source "$(dirname "${BASH_SOURCE[0]}")/../support/app_test_lib.sh"

skip_without_device --input "$data/seven.csv" --dims 4x4
outputs=(--cells-out "$work/cells.txt" --neighbors-out "$work/neighbors.txt" --png "$work/grid.png")

expect_bad "malformed number" "bad_number.csv:4: y: 'abc' is not a number" \
  --input "$data/bad_number.csv" --dims 4x4 --radius 0.1
expect_bad "NaN coordinate" "nan.csv:3: particle 1 at (nan, 1) is not finite" \
  --input "$data/nan.csv" --dims 4x4 --domain 0,0:4,4 --radius 1
expect_bad "infinite coordinate" "inf.csv:4: particle 1 at (1, inf) is not finite" \
  --input "$data/inf.csv" --dims 4x4 --radius 0.1 --clamp
expect_bad "outside the domain" "outside.csv:3: particle 1 at (5, 1) lies outside the grid's domain" \
  --input "$data/outside.csv" --dims 4x4 --domain 0,0:4,4 --radius 1
expect_bad "wrong header" "bad_header.csv:1: expected the header 'x,y' or 'x,y,z'" \
  --input "$data/bad_header.csv" --dims 4x4 --radius 0.1
expect_bad "wrong number of fields" "bad_fields.csv:3: expected 2 comma-separated numbers, got 3 fields" \
  --input "$data/bad_fields.csv" --dims 4x4 --radius 0.1
expect_bad "header of the wrong dimension" "seven.csv:1: the header has 2 coordinates but --dims 3" \
  --input "$data/seven.csv" --dims 4x4x4 --radius 0.1
expect_bad "missing file" "no-such.csv: cannot open for reading" \
  --input "$data/no-such.csv" --dims 4x4 --radius 0.1
expect_bad "radius of zero" "must be finite and > 0" \
  --input "$data/seven.csv" --dims 4x4 --domain 0,0:4,4 --radius 0
expect_bad "negative radius" "must be finite and > 0" \
  --input "$data/seven.csv" --dims 4x4 --domain 0,0:4,4 --radius -1
expect_bad "radius above the cell size" "exceeds the cell size 1 along axis x" \
  --input "$data/seven.csv" --dims 4x4 --domain 0,0:4,4 --radius 1.5
expect_bad "bad --dims" "--dims" --input "$data/seven.csv" --dims 4x0 --radius 0.1
expect_bad "bad --domain" "--domain" --input "$data/seven.csv" --dims 4x4 --domain 0,0:0,4 --radius 0.1
expect_bad "--neighbors-out without --radius" "--neighbors-out needs --radius" --input "$data/seven.csv" --dims 4x4

# The worked example: seven particles in the lecture's 4×4 grid, radius 1.
if "$app" --input "$data/seven.csv" --dims 4x4 --domain 0,0:4,4 --radius 1 --solution all --check \
  "${outputs[@]}" >"$work/stdout" 2>"$work/stderr"; then
  cmp -s "$work/cells.txt" "$data/seven.cells.expected" || fail "--cells-out differs: $(tr '\n' ' ' <"$work/cells.txt")"
  cmp -s "$work/neighbors.txt" "$data/seven.neighbors.expected" ||
    fail "--neighbors-out differs: $(tr '\n' ' ' <"$work/neighbors.txt")"
  [[ $(head -c 4 "$work/grid.png" | tail -c 3) == PNG ]] || fail "--png is not a PNG"
else
  fail "the worked example: exit status $?: $(cat "$work/stderr")"
fi
rm -f "$work"/cells.txt "$work"/neighbors.txt "$work"/grid.png

# Clamping: the particle outside the domain joins the nearest cell (x = 3, y = 1: cell 7).
if "$app" --input "$data/outside.csv" --dims 4x4 --domain 0,0:4,4 --clamp --cells-out "$work/cells.txt" \
  >"$work/stdout" 2>"$work/stderr"; then
  [[ $(sed -n 8p "$work/cells.txt") == 1 && $(awk "{ s += \$1 } END { print s }" "$work/cells.txt") == 3 ]] ||
    fail "--clamp: cells $(tr '\n' ' ' <"$work/cells.txt")"
else
  fail "--clamp: exit status $?: $(cat "$work/stderr")"
fi

# No particles: every cell empty.
if "$app" --input "$data/empty.csv" --dims 2x2 --cells-out "$work/cells.txt" >"$work/stdout" 2>"$work/stderr"; then
  [[ $(tr '\n' ' ' <"$work/cells.txt") == "0 0 0 0 " ]] || fail "empty input: cells $(tr '\n' ' ' <"$work/cells.txt")"
else
  fail "empty input: exit status $?: $(cat "$work/stderr")"
fi

finish dpt-grid

#!/usr/bin/env bash
# dpt-grid end to end: bad input exits 2 with one line naming the file and line and leaves no output file;
# good input, CSV or raw binary, writes --cells-out and --neighbors-out exactly as worked out by hand.
#   usage: app_test.sh PATH/TO/dpt-grid PATH/TO/tests/grid/data
set -uo pipefail
app=$1
data=$2
source "$(dirname "${BASH_SOURCE[0]}")/../test_support/app_test_lib.sh"

skip_without_device --input "$data/seven.csv" --dims 4x4
outputs=(--cells-out "$work/cells.txt" --neighbors-out "$work/neighbors.txt" --png "$work/grid.png")

expect_bad "malformed number" "bad_number.csv:4: y: 'abc' is not a number" \
  --input "$data/bad_number.csv" --dims 4x4 --radius 0.1
printf 'x,y\n0,0\n1\0009,1\n' >"$work/nul.csv"  # a NUL byte must not end the number, nor the message
expect_bad "a NUL byte inside a number" "nul.csv:3: x: '1?9' is not a number" --input "$work/nul.csv" --dims 4x4 \
  --radius 0.1
saved_outputs=("${outputs[@]}")
outputs=(--cells-out "$work/same.txt" --neighbors-out "$work/same.txt")
expect_bad "two outputs naming one file" "same.txt: the same file as another output of this run" \
  --input "$data/seven.csv" --dims 4x4 --radius 0.5
outputs=("${saved_outputs[@]}")
expect_bad "more cells along an axis than float counts exactly" \
  "grid: 16777217 cells along x are more than float counts exactly (at most 16777216)" \
  --generate uniform --n 10 --dims 16777217x1 --precision float --radius 1e-8
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
# more cells than 32-bit ids number, refused before any particle is made: products that wrap in 64 bits to a
# negative count and to 0, and 2^32 cells for 2^31 - 1 particles (about 34 GiB, were they generated first)
for dims in 1073741824x1073741824x8 2097152x2097152x4194304 65536x65536; do
  expect_bad "--dims $dims" "--dims: $dims is more cells than dpt-grid supports (2^31 - 1)" \
    --generate uniform --n 2147483647 --dims "$dims"
done
expect_bad "bad --domain" "--domain" --input "$data/seven.csv" --dims 4x4 --domain 0,0:0,4 --radius 0.1
expect_bad "--neighbors-out without --radius" "--neighbors-out needs --radius" --input "$data/seven.csv" --dims 4x4
# the cell side 0.25 rounded up by 4 ulps is the largest radius taken: 5 ulps above it is refused, with the rule
expect_bad "radius 5 ulps above the cell size, the rule and every digit printed" \
  "radius 0.2500000000000003 exceeds the cell size 0.25 along axis x, (4 - 0) / 16 in double, by more than rounding: the radius may be at most 0.2500000000000002, that size rounded up by 4 ulps" \
  --input "$data/seven.csv" --dims 16x16 --domain 0,0:4,4 --radius 0.2500000000000003
expect_bad "radius above a cell size that rounds below 0.1, in float" \
  "radius 0.11 exceeds the cell size 0.099999994 along axis x, (0.9 - 0) / 9 in float, by more than rounding: the radius may be at most 0.100000024," \
  --input "$data/seven.csv" --dims 9x9 --domain 0,0:0.9,0.9 --radius 0.11 --precision float --clamp
expect_bad "radius whose square overflows" "its square overflows float" \
  --input "$data/seven.csv" --dims 4x4 --domain 0,0:3e38,3e38 --radius 1e20 --precision float

# Boxes and numbers the chosen precision cannot hold.
printf 'x,y\n-1e308,0\n1e308,1\n' >"$work/wide.csv"
printf 'x,y\n1,0\n1e39,1\n' >"$work/beyond_float.csv"
expect_bad "bounding box whose width overflows" \
  "wide.csv: the particles' bounding box is too wide along x: 1e+308 - -1e+308 overflows double" \
  --input "$work/wide.csv" --dims 2x2 --radius 0.1
expect_bad "--domain whose width overflows" "--domain is too wide along x" \
  --input "$work/wide.csv" --dims 2x2 --domain -1e308,0:1e308,1 --radius 0.1
expect_bad "--domain whose width overflows float" "--domain is too wide along x: 3e+38 - -3e+38 overflows float" \
  --input "$data/seven.csv" --dims 2x2 --domain -3e38,0:3e38,4 --radius 0.1 --precision float
expect_bad "coordinate beyond float" "beyond_float.csv:3: x: 1e+39 is out of range for --precision float" \
  --input "$work/beyond_float.csv" --dims 2x2 --radius 0.1 --precision float
expect_bad "--domain bound beyond float" "--domain: 1e+39 is out of range for --precision float" \
  --input "$data/seven.csv" --dims 2x2 --domain 0,0:1e39,4 --radius 0.1 --precision float
expect_bad "--domain bounds that are one float" "the bounds 1 and 1.00000001 of axis x are both 1 in float precision" \
  --input "$data/seven.csv" --dims 2x2 --domain 1,0:1.00000001,4 --radius 0.1 --precision float --clamp
expect_bad "radius beyond float" "--radius: 1e-50 is out of range for --precision float" \
  --input "$data/seven.csv" --dims 4x4 --domain 0,0:4,4 --radius 1e-50 --precision float

# expect_worked_example "what it is" FILE: the lecture's seven particles read from FILE, in its 4×4 grid with radius
# 1 and every solution, checked, give the hand-worked --cells-out and --neighbors-out and a PNG
expect_worked_example() {
  local name=$1 input=$2
  if "$app" --input "$input" --dims 4x4 --domain 0,0:4,4 --radius 1 --solution all --check "${outputs[@]}" \
    >"$work/stdout" 2>"$work/stderr"; then
    cmp -s "$work/cells.txt" "$data/seven.cells.expected" ||
      fail "$name: --cells-out differs: $(tr '\n' ' ' <"$work/cells.txt")"
    cmp -s "$work/neighbors.txt" "$data/seven.neighbors.expected" ||
      fail "$name: --neighbors-out differs: $(tr '\n' ' ' <"$work/neighbors.txt")"
    [[ $(head -c 4 "$work/grid.png" | tail -c 3) == PNG ]] || fail "$name: --png is not a PNG"
  else
    fail "$name: exit status $?: $(cat "$work/stderr")"
  fi
  rm -f "$work"/cells.txt "$work"/neighbors.txt "$work"/grid.png
}

expect_worked_example "the worked example" "$data/seven.csv"

# The worked example as a file written on Windows: CRLF line ends, a blank line after the header, spaces around the
# numbers. The same cells; an error's line counts the blank line.
sed -e 's/,/ , /' -e 's/$/\r/' -e '1a\
\r' "$data/seven.csv" >"$work/seven_crlf.csv"
expect_worked_example "CRLF lines" "$work/seven_crlf.csv"
printf 'x,y\r\n\r\n1,1\r\n1, abc \r\n' >"$work/crlf_bad.csv"
expect_bad "malformed number after CRLF lines" "crlf_bad.csv:4: y: 'abc' is not a number" \
  --input "$work/crlf_bad.csv" --dims 4x4 --radius 0.1

# Raw particles, as numpy's tofile writes an n x d array: a CSV's coordinates, row after row, as little-endian
# float64 ("d") or float32 ("f").
to_raw() {
  python3 - "$@" <<'PY'
import struct, sys
kind, csv, raw = sys.argv[1:]
values = [float(v) for line in open(csv).read().splitlines()[1:] if line.strip() for v in line.split(',')]
open(raw, 'wb').write(struct.pack('<%d%s' % (len(values), kind), *values))
PY
}
to_raw d "$data/seven.csv" "$work/seven.f64"
to_raw f "$data/seven.csv" "$work/seven.f32"
expect_worked_example "raw float64" "$work/seven.f64"
expect_worked_example "raw float32" "$work/seven.f32"
to_raw d "$data/nan.csv" "$work/nan.f64"
to_raw d "$work/beyond_float.csv" "$work/beyond_float.f64"
head -c 24 "$work/seven.f64" >"$work/odd.f64"
expect_bad "raw file of a bad size" "odd.f64: 24 bytes is not a whole number of particles of 2 float64 coordinates" \
  --input "$work/odd.f64" --dims 4x4 --radius 0.1
expect_bad "raw file of the wrong dimension" \
  "seven.f32: 56 bytes is not a whole number of particles of 3 float32 coordinates (12 bytes each)" \
  --input "$work/seven.f32" --dims 4x4x4 --radius 0.1
mkdir "$work/folder.f64" "$work/folder.csv"
expect_bad "a folder named as a raw file" "folder.f64: read error" --input "$work/folder.f64" --dims 4x4 --radius 0.1
expect_bad "a folder named as a CSV file" "folder.csv: read error" --input "$work/folder.csv" --dims 4x4 --radius 0.1
expect_bad "NaN in a raw file" "nan.f64: particle 1 at (nan, 1) is not finite" \
  --input "$work/nan.f64" --dims 4x4 --domain 0,0:4,4 --radius 1
expect_bad "raw coordinate beyond float" \
  "beyond_float.f64: particle 1: x: 1e+39 is out of range for --precision float" \
  --input "$work/beyond_float.f64" --dims 2x2 --radius 0.1 --precision float

# Clamping: the particle outside the domain joins the nearest cell (x = 3, y = 1: cell 7).
if "$app" --input "$data/outside.csv" --dims 4x4 --domain 0,0:4,4 --clamp --cells-out "$work/cells.txt" \
  >"$work/stdout" 2>"$work/stderr"; then
  [[ $(sed -n 8p "$work/cells.txt") == 1 && $(awk "{ s += \$1 } END { print s }" "$work/cells.txt") == 3 ]] ||
    fail "--clamp: cells $(tr '\n' ' ' <"$work/cells.txt")"
else
  fail "--clamp: exit status $?: $(cat "$work/stderr")"
fi

# A bounding box of one distinct value per axis in the chosen precision is widened by 0.5 on each side (here
# 1 and 1.00000001 are one float), or by a step of the number type where 0.5 is below its spacing (1e17).
printf 'x,y\n1,0\n1.00000001,1\n' >"$work/one_float.csv"
printf 'x,y\n1e17,0\n1e17,1\n' >"$work/one_value.csv"
for run in "one_float.csv float [0.5, 1.5] x [0, 1]" \
  "one_value.csv double [9.999999999999998e+16, 1.0000000000000002e+17] x [0, 1]"; do
  read -r file precision box <<<"$run"
  if "$app" --input "$work/$file" --dims 2x2 --precision "$precision" --check --cells-out "$work/cells.txt" \
    >"$work/stdout" 2>"$work/stderr"; then
    grep -qF "over $box" "$work/stdout" || fail "$file: not over $box: $(head -1 "$work/stdout")"
    [[ $(tr '\n' ' ' <"$work/cells.txt") == "1 0 1 0 " || $(tr '\n' ' ' <"$work/cells.txt") == "0 1 0 1 " ]] ||
      fail "$file: cells $(tr '\n' ' ' <"$work/cells.txt")"
  else
    fail "$file in $precision: exit status $?: $(cat "$work/stderr")"
  fi
done

# Pairs at distance R whose cells, computed in the chosen precision, lie two apart are still neighbours.
printf 'x,y\n0.004999999999999999,0.5\n0.006999999999999998,0.5\n' >"$work/apart_double.csv"
printf 'x,y\n0.616,0.5\n1.146,0.5\n' >"$work/apart_float.csv"
for run in "apart_double.csv double 5x1 0.001,0:0.011,1 0.0019999999999999996" \
  "apart_float.csv float 3x1 0.086,0:1.676,1 0.530000031"; do
  read -r file precision dims domain radius <<<"$run"
  if "$app" --input "$work/$file" --precision "$precision" --dims "$dims" --domain "$domain" --radius "$radius" \
    --check --neighbors-out "$work/neighbors.txt" >"$work/stdout" 2>"$work/stderr"; then
    [[ $(tr '\n' ' ' <"$work/neighbors.txt") == "1 1 " ]] || fail "$file: neighbours $(tr '\n' ' ' <"$work/neighbors.txt")"
  else
    fail "$file in $precision: exit status $?: $(cat "$work/stderr")"
  fi
done

# A radius equal to the cell side up to rounding: cells whose side rounds below the radius 0.1 (0.3 / 3 in double,
# 0.9 / 9 in float), and the largest radius taken, that side rounded up by 4 ulps. By hand: particles 0-1 are 0.09
# apart, 1-3 0.08, other pairs over 0.12 but 4-5, x = 0.1 less a few ulps (cell 0) and about 0.2 (cell 2),
# exactly the largest radius apart in the chosen precision: neighbours at that radius, not at 0.1.
for run in "double 3 0.3 0.099999999999999936 0.19999999999999998 0.10000000000000005" \
  "float 9 0.9 0.099999994039535522 0.20000001788139343 0.100000024"; do
  read -r precision cells upper x4 x5 largest <<<"$run"
  printf 'x,y\n0.05,0.02\n0.14,0.02\n0.27,0.02\n0.14,0.1\n%s,0.27\n%s,0.27\n' "$x4" "$x5" >"$work/cell_side.csv"
  for radius in 0.1 "$largest"; do
    expected="1 2 0 1 0 0 "
    [[ $radius == 0.1 ]] || expected="1 2 0 1 1 1 "
    if "$app" --input "$work/cell_side.csv" --precision "$precision" --dims "${cells}x$cells" \
      --domain "0,0:$upper,$upper" --radius "$radius" --check --neighbors-out "$work/neighbors.txt" \
      >"$work/stdout" 2>"$work/stderr"; then
      [[ $(tr '\n' ' ' <"$work/neighbors.txt") == "$expected" ]] ||
        fail "radius $radius in $precision: neighbours $(tr '\n' ' ' <"$work/neighbors.txt"), expected $expected"
    else
      fail "radius $radius, the cell side up to rounding, in $precision: exit status $?: $(cat "$work/stderr")"
    fi
  done
done

# --png draws a particle far beyond the domain (--clamp) at the nearest edge, as one on that edge.
printf 'x,y\n0.5,0.5\n1e300,-1e300\n-1e300,0.3\n' >"$work/far.csv"
printf 'x,y\n0.5,0.5\n1,0\n0,0.3\n' >"$work/edge.csv"
for file in far edge; do
  "$app" --input "$work/$file.csv" --dims 4x4 --domain 0,0:1,1 --clamp --png "$work/$file.png" >"$work/stdout" \
    2>"$work/stderr" || fail "--png of $file.csv: exit status $?: $(cat "$work/stderr")"
done
cmp -s "$work/far.png" "$work/edge.png" || fail "--png: particles far beyond the domain are not drawn at its edge"

# All outputs or none: a --png that fails as it is written (/dev/full) leaves no --cells-out or --neighbors-out,
# and an existing one keeps its text.
rm -f "$work/cells.txt"
printf 'old\n' >"$work/kept.txt"
"$app" --input "$data/seven.csv" --dims 4x4 --domain 0,0:4,4 --radius 1 --cells-out "$work/cells.txt" \
  --neighbors-out "$work/kept.txt" --png /dev/full >/dev/null 2>"$work/stderr"
status=$?
((status == 1)) || fail "--png /dev/full: exit status $status, expected 1"
grep -qF "/dev/full: writing failed" "$work/stderr" || fail "--png /dev/full: stderr $(cat "$work/stderr")"
[[ ! -e $work/cells.txt ]] || fail "--png /dev/full: --cells-out was written"
[[ $(cat "$work/kept.txt") == old ]] || fail "--png /dev/full: the existing --neighbors-out changed"
left=$(compgen -G "$work/*.partial-*")
[[ -z $left ]] || fail "--png /dev/full: left temporaries behind: $left"
rm -f "$work/kept.txt"

# No particles: every cell empty.
if "$app" --input "$data/empty.csv" --dims 2x2 --cells-out "$work/cells.txt" >"$work/stdout" 2>"$work/stderr"; then
  [[ $(tr '\n' ' ' <"$work/cells.txt") == "0 0 0 0 " ]] || fail "empty input: cells $(tr '\n' ' ' <"$work/cells.txt")"
else
  fail "empty input: exit status $?: $(cat "$work/stderr")"
fi

finish dpt-grid

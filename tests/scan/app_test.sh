#!/usr/bin/env bash
# dpt-scan end to end: bad input exits 2 with one line naming the file and line and leaves no output file; good
# input writes --out as the prefix sums worked out by hand below, for every implementation (--check).
#   usage: app_test.sh PATH/TO/dpt-scan cuda|cpu
set -uo pipefail
app=$1
build=$2
source "$(dirname "${BASH_SOURCE[0]}")/../test_support/app_test_lib.sh"

skip_without_device --n 4 --impl thrust
outputs=(--out "$work/prefix.txt")

# expect_prefix "what it is" "v0 v1 ..." ARGS... — exit status 0, and --out holds those values, one per line
expect_prefix() {
  local name=$1 expected=$2
  shift 2
  "$app" "$@" "${outputs[@]}" >"$work/stdout" 2>"$work/stderr"
  local status=$?
  if ((status != 0)); then
    fail "$name: exit status $status: $(cat "$work/stderr")"
    return
  fi
  [[ -f $work/prefix.txt ]] || { fail "$name: --out was not written"; return; }
  local got
  got=$(tr '\n' ' ' <"$work/prefix.txt" | sed 's/ $//')
  [[ $got == "$expected" ]] || fail "$name: --out holds '$got', expected '$expected'"
  rm -f "$work/prefix.txt"
}

# Good input, every implementation checked against the sequential scan. Values chosen so every sum is exact.
printf '3\n1\n\n-4\n1\n5\n' >"$work/ints.txt"
expect_prefix "i32 inclusive" "3 4 0 1 6" --input "$work/ints.txt" --check
expect_prefix "i32 exclusive" "0 3 4 0 1" --input "$work/ints.txt" --exclusive --check
expect_prefix "i64 inclusive" "3 4 0 1 6" --input "$work/ints.txt" --type i64 --check
printf '3\r\n 1 \r\n\r\n-4\r\n1\r\n5\r\n' >"$work/crlf.txt"  # written on Windows, spaces around the numbers
expect_prefix "i32 from CRLF lines" "3 4 0 1 6" --input "$work/crlf.txt" --check
printf '0.5\n0.25\n-1\n2\n' >"$work/floats.txt"
expect_prefix "f64 inclusive" "0.5 0.75 -0.25 1.75" --input "$work/floats.txt" --type f64 --check
expect_prefix "f64 exclusive" "0 0.5 0.75 -0.25" --input "$work/floats.txt" --type f64 --exclusive --check
expect_prefix "f32 inclusive" "0.5 0.75 -0.25 1.75" --input "$work/floats.txt" --type f32 --check
# FLT_MAX written with 9 digits (3.40282347e+38 > FLT_MAX as a double) reads back as FLT_MAX
printf '3.40282347e+38\n-3.40282347e+38\n' >"$work/flt_max.txt"
expect_prefix "f32 FLT_MAX" "3.40282347e+38 0" --input "$work/flt_max.txt" --type f32 --check
"$app" --input "$work/flt_max.txt" --type f32 --impl thrust --out "$work/flt_max_out.txt" >/dev/null 2>&1 ||
  fail "f32 FLT_MAX: exit status $?"
expect_prefix "f32 FLT_MAX read back" "3.40282347e+38 3.40282347e+38" --input "$work/flt_max_out.txt" --type f32 \
  --check
rm -f "$work/flt_max_out.txt"
# no values: an empty file, one of blank lines only, an empty raw file; every implementation, an empty --out
: >"$work/empty.txt"
expect_prefix "an empty file" "" --input "$work/empty.txt" --check
printf '\n\r\n\n' >"$work/blank.txt"
expect_prefix "blank lines only" "" --input "$work/blank.txt" --exclusive --check
: >"$work/empty.f64"
expect_prefix "an empty raw file" "" --input "$work/empty.f64" --check
# generated values: every implementation agrees with the sequential scan
"$app" --n 3000 --seed 5 --type f32 --check >"$work/stdout" 2>&1 || fail "generated f32: exit status $?"
"$app" --n 3000 --seed 5 --exclusive --check >"$work/stdout" 2>&1 || fail "generated i32: exit status $?"
# CPU builds say which of the chosen implementations ran on the SIMT runner, and only those
if [[ $build == cpu ]]; then
  "$app" --n 10 --impl thrust >"$work/stdout" 2>&1 || fail "thrust only: exit status $?"
  ! grep -q "SIMT runner" "$work/stdout" || fail "thrust only: the note names the SIMT runner: $(cat "$work/stdout")"
  "$app" --n 10 --impl shfl >"$work/stdout" 2>&1 || fail "shfl only: exit status $?"
  grep -q "^note: shfl ran on the host SIMT runner" "$work/stdout" ||
    fail "shfl only: no note naming shfl alone: $(cat "$work/stdout")"
fi

# Raw little-endian files, typed by their names (numpy's tofile): the same values as ints.txt and floats.txt.
raw() {  # raw FORMAT FILE VALUES...: the values in struct's little-endian FORMAT (i, q: integers; f, d: floats)
  python3 - "$@" <<'PY'
import struct, sys
kind, path, values = sys.argv[1], sys.argv[2], sys.argv[3:]
number = float if kind in 'fd' else int
open(path, 'wb').write(struct.pack('<%d%s' % (len(values), kind), *map(number, values)))
PY
}
raw i "$work/ints.i32" 3 1 -4 1 5
raw q "$work/ints.i64" 3 1 -4 1 5
raw f "$work/floats.f32" 0.5 0.25 -1 2
raw d "$work/floats.f64" 0.5 0.25 -1 2
expect_prefix "raw i32" "3 4 0 1 6" --input "$work/ints.i32" --check
expect_prefix "raw i64, --type given" "0 3 4 0 1" --input "$work/ints.i64" --type i64 --exclusive --check
expect_prefix "raw f32" "0.5 0.75 -0.25 1.75" --input "$work/floats.f32" --check
expect_prefix "raw f64" "0.5 0.75 -0.25 1.75" --input "$work/floats.f64" --check

# Bad input.
printf '1\n2\noops\n' >"$work/bad_number.txt"
expect_bad "malformed number" "bad_number.txt:3: 'oops' is not a number" --input "$work/bad_number.txt" --type f64
expect_bad "malformed i32" "bad_number.txt:3: 'oops' is not a valid i32" --input "$work/bad_number.txt"
printf '1\r\n\r\noops\r\n' >"$work/crlf_bad.txt"
expect_bad "malformed i32 after CRLF lines" "crlf_bad.txt:3: 'oops' is not a valid i32" --input "$work/crlf_bad.txt"
printf '1\n\n2147483648\n' >"$work/too_big.txt"
expect_bad "i32 out of range" "too_big.txt:3: '2147483648' is not a valid i32" --input "$work/too_big.txt"
printf '1 2\n' >"$work/two.txt"
printf '1\0002\n' >"$work/nul.txt"  # a NUL byte ends a C string: the number must not end there, nor the message
expect_bad "a NUL byte inside a number" "nul.txt:1: '1?2' is not a valid i32" --input "$work/nul.txt"
expect_bad "an option given twice" "option --input is given twice" --input "$work/nul.txt" --input "$work/nul.txt"
expect_bad "an option's value that is the next option" "option --type needs a value, not the option '--input'" \
  --type --input "$work/nul.txt"
expect_bad "two values on a line" "two.txt:1: expected one value per line" --input "$work/two.txt"
printf '1\nnan\n' >"$work/nan.txt"
expect_bad "NaN" "nan.txt:2: 'nan' is not a finite f64 value" --input "$work/nan.txt" --type f64
printf -- '-inf\n' >"$work/inf.txt"
expect_bad "infinity" "inf.txt:1: '-inf' is not a finite f32 value" --input "$work/inf.txt" --type f32
printf '1\n3.4028236e+38\n' >"$work/past_flt_max.txt"
expect_bad "past FLT_MAX" "past_flt_max.txt:2: '3.4028236e+38' is out of the range of f32" \
  --input "$work/past_flt_max.txt" --type f32
printf '2\n1e309\n' >"$work/past_dbl_max.txt"
expect_bad "past DBL_MAX" "past_dbl_max.txt:2: '1e309' is out of the range of f64" --input "$work/past_dbl_max.txt" \
  --type f64
expect_bad "past DBL_MAX, as f32" "past_dbl_max.txt:2: '1e309' is out of the range of f32" \
  --input "$work/past_dbl_max.txt" --type f32
printf '1e-310\n1\n' >"$work/subnormal.txt"  # a subnormal double is a value like any other
"$app" --input "$work/subnormal.txt" --type f64 --check >"$work/stdout" 2>&1 || fail "a subnormal f64: exit status $?"
expect_bad "missing file" "no-such.txt: cannot open" --input "$work/no-such.txt"
mkdir "$work/folder"
expect_bad "a folder" "folder: read error" --input "$work/folder"
mkdir "$work/folder.f32"
expect_bad "a folder named as a raw file" "folder.f32: read error" --input "$work/folder.f32"
# raw files: a size that is not whole values, a --type the name contradicts, a NaN, an overflow by element
head -c 7 "$work/ints.i32" >"$work/short.i32"
expect_bad "raw file of a bad size" "short.i32: 7 bytes is not a whole number of i32 values (4 bytes each)" \
  --input "$work/short.i32"
expect_bad "raw file of another type" "--type f32 does not match" --input "$work/ints.i32" --type f32
raw f "$work/nan.f32" 1 nan
expect_bad "raw NaN" "nan.f32: element 1 is not a finite f32 value (nan)" --input "$work/nan.f32"
raw i "$work/big.i32" 2147483647 0 1
expect_bad "raw i32 overflow" "big.i32: the prefix sums overflow i32 at element 2" --input "$work/big.i32"
# prefix sums that overflow, named by line (blank lines count), with and without --check
printf '3e38\n3e38\n' >"$work/big.f32.txt"
expect_bad "f32 overflow" "big.f32.txt:2: the prefix sums overflow f32 at element 1" --input "$work/big.f32.txt" \
  --type f32
expect_bad "f32 overflow, --check" "big.f32.txt:2: the prefix sums overflow f32 at element 1" \
  --input "$work/big.f32.txt" --type f32 --check
printf '1e308\n\n1e308\n' >"$work/big.f64.txt"
expect_bad "f64 overflow" "big.f64.txt:3: the prefix sums overflow f64 at element 1" --input "$work/big.f64.txt" \
  --type f64 --check
# the prefix sums fit, but x[1] + x[2] does not, and a parallel scan may add them first
printf -- '-3e38\n3e38\n3e38\n' >"$work/run.txt"
expect_bad "f32 overflow of a run" "run.txt:3: the prefix sums overflow f32 at element 2 (x[1..2] sums to 6e+38" \
  --input "$work/run.txt" --type f32 --check
# the same with 5000 values: the tile that holds x[4000] and x[4001] sums to inf, and so did every later output
awk 'BEGIN { for (i = 0; i < 5000; ++i) print (i == 0 ? "-3e38" : i == 4000 || i == 4001 ? "3e38" : 0) }' \
  >"$work/runs.txt"
expect_bad "f32 overflow of a tile" "runs.txt:4002: the prefix sums overflow f32 at element 4001 (x[1..4001]" \
  --input "$work/runs.txt" --type f32 --impl single-pass
printf '2147483647\n1\n' >"$work/int_max.txt"
expect_bad "i32 overflow" "int_max.txt:2: the prefix sums overflow i32 at element 1" --input "$work/int_max.txt"
# an exclusive scan's output 2 is x[0] + x[1], named by x[1]'s line
printf '2147483647\n1\n1\n' >"$work/int_max3.txt"
expect_bad "i32 exclusive overflow" "int_max3.txt:2: the prefix sums overflow i32 at element 2 (the sum of x[0..1])" \
  --input "$work/int_max3.txt" --exclusive
expect_bad "bad type" "--type must be i32, i64, f32 or f64" --n 4 --type u8
expect_bad "bad impl" "--impl must be" --n 4 --impl magic
expect_bad "input and n" "--input excludes --n and --seed" --input "$work/ints.txt" --n 4
if [[ $build == cpu ]]; then
  expect_bad "cub on a CPU build" "--impl cub needs a CUDA build" --n 4 --impl cub
fi
"$app" --help >/dev/null || fail "--help exits $?"

# More values than any machine's memory holds (2^34 i64: 128 GiB each for the input, the reference, the device's
# input and output…) are refused before they are generated, with what the scan needs and what is available.
expect_refused "2^34 i64 values" "error: not enough memory: a scan of 17179869184 i64 values needs at least" \
  --n 17179869184 --type i64

# An exclusive scan's total is not output: it may overflow, in every implementation (by hand: out[1] = x[0]).
expect_prefix "i32 exclusive, total past INT32_MAX" "0 2147483647" --input "$work/int_max.txt" --exclusive --check
raw q "$work/int64_max.i64" 9223372036854775807 1
expect_prefix "i64 exclusive, total past INT64_MAX" "0 9223372036854775807" --input "$work/int64_max.i64" \
  --exclusive --check
expect_prefix "f32 exclusive, total past FLT_MAX" "0 3.00000001e+38" --input "$work/big.f32.txt" --type f32 \
  --exclusive --check

# An --out that cannot be written is bad input reported before any work: nothing on stdout.
"$app" --n 10 --impl all --out "$work/missing/prefix.txt" >"$work/stdout" 2>"$work/stderr"
status=$?
((status == 2)) || fail "--out in a missing folder: exit status $status, expected 2"
grep -qF "missing/prefix.txt" "$work/stderr" || fail "--out in a missing folder: stderr $(cat "$work/stderr")"
[[ ! -s $work/stdout ]] || fail "--out in a missing folder: the scans ran first: $(head -n 2 "$work/stdout")"

finish dpt-scan

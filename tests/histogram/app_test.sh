#!/usr/bin/env bash
# dpt-histogram end to end: bad input exits 2 with one line naming the file (and line) and leaves no output file;
# good input writes --out exactly as numpy.histogram counts it (expected values below were computed with NumPy).
#   usage: app_test.sh PATH/TO/dpt-histogram PATH/TO/tests/histogram/data cuda|cpu
set -uo pipefail
app=$1
data=$2
build=$3
source "$(dirname "${BASH_SOURCE[0]}")/../test_support/app_test_lib.sh"

skip_without_device --input "$data/constant.txt" --bins 4
outputs=(--out "$work/counts.txt" --png "$work/histogram.png")

# expect_counts "what it is" "c0 c1 ..." ARGS... — exit status 0 and --out holds those counts, one per line
expect_counts() {
  local name=$1 expected=$2
  shift 2
  if ! "$app" "$@" "${outputs[@]}" >"$work/stdout" 2>"$work/stderr"; then
    fail "$name: exit status $?: $(cat "$work/stderr")"
    return
  fi
  local got
  got=$(tr '\n' ' ' <"$work/counts.txt" | sed 's/ $//')
  [[ $got == "$expected" ]] || fail "$name: counts '$got', expected '$expected'"
  [[ $(head -c 8 "$work/histogram.png" | od -An -tx1 | tr -d ' \n') == 89504e470d0a1a0a ]] ||
    fail "$name: --png did not write a PNG"
  rm -f "$work"/counts.txt "$work"/histogram.png
}

mkdir "$work/in_folder.f32"
expect_bad "a folder named as a raw file" "in_folder.f32: read error" --input "$work/in_folder.f32" --bins 4
printf 'abcde' >"$work/bad.f32"
expect_bad "malformed number" "bad_number.txt:3: 'oops' is not a number" --input "$data/bad_number.txt" --bins 4
expect_bad "binary file of a bad size" "bad.f32: 5 bytes is not a whole number of float32 values" \
  --input "$work/bad.f32" --bins 4
expect_bad "NaN without a range" "nan.txt: the data contain NaN or Inf" --input "$data/nan.txt" --bins 4
expect_bad "missing file" "no-such.txt: cannot open for reading" --input "$data/no-such.txt" --bins 4
expect_bad "no bins" "--bins must be between 1" --input "$data/constant.txt" --bins 0
expect_bad "reversed range" "--range needs LO <= HI" --input "$data/constant.txt" --bins 4 --range 2:1
expect_bad "infinite range" "--range must be finite" --input "$data/constant.txt" --bins 4 --range 0:inf
# bins NumPy 2 refuses too (bad input, not a failed check), each with what is wrong
# np.histogram([3.0, 3.0], 10, range=(1, 1.0000000000000002)): 'Too many bins for data range'
expect_bad "range too narrow for the bins" \
  "error: --range: histogram: too many bins for the data range [1, 1.0000000000000002]: cannot create 10 finite-sized" \
  --input "$data/constant.txt" --bins 10 --range 1:1.0000000000000002
# np.histogram([3.0, 3.0], 1, range=(-1e308, 1e308)): hi - lo overflows; NumPy's first edge is NaN and it counts
# [2] (with --bins 2, 'Too many bins'); dpt refuses any K
expect_bad "range too wide for a double" \
  "error: --range: histogram: the range [-1e+308, 1e+308] is too wide: its width hi - lo overflows float64" \
  --input "$data/constant.txt" --bins 1 --range -1e308:1e308
# np.histogram([1.0, 1.0000000000000002, 1.0000000000000004], 5): 'Too many bins' (NumPy 1.24 said [0 1 0 1 1])
printf '1\n1.0000000000000002\n1.0000000000000004\n' >"$work/close.txt"
expect_bad "data too close for the bins" \
  "error: $work/close.txt: histogram: too many bins for the data range [1, 1.0000000000000004]: cannot create 5" \
  --input "$work/close.txt" --bins 5
# np.histogram(np.float32([1, 2]), 10**7): float32 edges 1e-7 apart near 2 collapse
printf '\x00\x00\x80\x3f\x00\x00\x00\x40' >"$work/one_two.f32"
expect_bad "float32 data too close for the bins" "cannot create 10000000 finite-sized bins" \
  --input "$work/one_two.f32" --bins 10000000
# np.histogram([1e20], 4) and range=(1e20, 1e20): 1e20 ± 0.5 == 1e20, so NumPy 2 has 'Too many bins' too
printf '1e20\n' >"$work/huge.txt"
expect_bad "one value too large to widen" \
  "huge.txt: histogram: the range [1e+20, 1e+20] is empty, and widening it by 0.5 each way" --input "$work/huge.txt" \
  --bins 4
expect_bad "an empty range too large to widen" "--range: histogram: the range [1e+20, 1e+20] is empty" \
  --input "$data/constant.txt" --bins 4 --range 1e20:1e20
printf '1e300\n' >"$work/huge.txt"
expect_bad "a number in few digits" "the range [1e+300, 1e+300] is empty" --input "$work/huge.txt" --bins 4
(($(wc -c <"$work/stderr") < 300)) || fail "a number in few digits: $(wc -c <"$work/stderr") bytes of error"
# a NUL byte ends a C string: the number must not end there, nor the message
printf '1\0009\n3\n' >"$work/nul.txt"
expect_bad "a NUL byte inside a number" "nul.txt:1: '1?9' is not a number" --input "$work/nul.txt" --bins 2
saved_outputs=("${outputs[@]}")
outputs=(--out "$work/same" --png "$work/./same")
expect_bad "--out and --png naming one file" "$work/./same: the same file as another output of this run" \
  --input "$data/constant.txt" --bins 4
outputs=("${saved_outputs[@]}")
expect_bad "unknown method" "--method must be" --input "$data/constant.txt" --bins 4 --method magic
expect_bad "no input" "give exactly one of --input and --generate" --bins 4
if [[ $build == cpu ]]; then
  expect_bad "cub on a CPU build" "--method cub needs a CUDA build" --input "$data/constant.txt" --bins 4 --method cub
fi

# np.histogram(np.loadtxt('tenths.txt'), bins=10, range=(0, 1)): 0.3 and 0.6 fall below their edges in double
expect_counts "values on edges" "1 1 2 0 1 2 1 0 1 2" --input "$data/tenths.txt" --bins 10 --range 0:1
grep -qF "dropped: 3 (below the range 1, above it 1, NaN 1)" "$work/stdout" || fail "values on edges: dropped line"
expect_counts "values on edges, every method" "1 1 2 0 1 2 1 0 1 2" --input "$data/tenths.txt" --bins 10 --range 0:1 \
  --method all
# no values: NumPy's np.histogram([], 4) counts nothing in the bins of [0, 1] (or of the range given)
: >"$work/empty.txt"
expect_counts "an empty file" "0 0 0 0" --input "$work/empty.txt" --bins 4 --method all --check
grep -qF "0 values" "$work/stdout" || fail "an empty file: no '0 values' in the report"
expect_counts "an empty file with a range" "0 0 0" --input "$work/empty.txt" --bins 3 --range 2:5 --check
: >"$work/empty.f32"
expect_counts "an empty raw file" "0 0" --input "$work/empty.f32" --bins 2 --check
# a file written on Windows: CRLF line ends, a blank line, spaces around the numbers; an error's line counts the blank
printf ' 0.5\r\n\r\n0.25 \r\n1\r\n' >"$work/crlf.txt"
expect_counts "CRLF lines" "1 2" --input "$work/crlf.txt" --bins 2 --range 0:1
printf '0.5\r\n\r\noops\r\n' >"$work/crlf_bad.txt"
expect_bad "malformed number after CRLF lines" "crlf_bad.txt:3: 'oops' is not a number" --input "$work/crlf_bad.txt" \
  --bins 4
# np.histogram([3.0, 3.0], bins=4): NumPy widens an empty range to [2.5, 3.5]
expect_counts "one distinct value" "0 0 2 0" --input "$data/constant.txt" --bins 4
# np.histogram([3.0, 3.0], bins=2, range=(3, 3)): a given empty range is widened too, to [2.5, 3.5]
expect_counts "an empty range given" "0 2" --input "$data/constant.txt" --bins 2 --range 3:3 --method all
grep -qF "2.5" "$work/stdout" || fail "an empty range given: the widened range is not printed"
# np.histogram(np.array([0, 1, 255], np.uint8), bins=3)
printf '\x00\x01\xff' >"$work/ok.u8"
expect_counts "bytes" "2 0 1" --input "$work/ok.u8" --bins 3
# np.histogram(np.linspace(-3.3, 7.7, 11).astype(np.float32), bins=10) in NumPy 2.4.6: edges in float32 arithmetic
# (NumPy 1.24.2 computes them in float64: 1 1 1 1 1 1 1 1 1 2); as float64 values, the float64 counts
printf '%b' \
  '\x33\x33\x53\xc0\xcd\xcc\x0c\xc0\xcd\xcc\x8c\xbf\x00\x00\x00\x26' \
  '\xcd\xcc\x8c\x3f\xcd\xcc\x0c\x40\x33\x33\x53\x40\xcd\xcc\x8c\x40' \
  '\x00\x00\xb0\x40\x33\x33\xd3\x40\x66\x66\xf6\x40' >"$work/linspace.f32"
expect_counts "float32 without a range" "2 1 1 1 0 2 1 0 2 1" --input "$work/linspace.f32" --bins 10 --method all \
  --check
grep -q "methods agree, and with the sequential count$" "$work/stdout" ||
  fail "float32 without a range: not checked: $(cat "$work/stdout")"
# np.histogram(np.linspace(-3.3, 7.7, 11).astype(np.float32), bins=10, range=(-3.3, 7.7)): float64 edges
expect_counts "float32 with a range" "1 1 1 1 1 1 1 1 1 2" --input "$work/linspace.f32" --bins 10 --range=-3.3:7.7 \
  --check
# np.histogram(np.linspace(-3.3, 7.7, 11).astype(np.float32).astype(np.float64), bins=10)
printf '%b' \
  '\x00\x00\x00\x60\x66\x66\x0a\xc0\x00\x00\x00\xa0\x99\x99\x01\xc0' \
  '\x00\x00\x00\xa0\x99\x99\xf1\xbf\x00\x00\x00\x00\x00\x00\xc0\x3c' \
  '\x00\x00\x00\xa0\x99\x99\xf1\x3f\x00\x00\x00\xa0\x99\x99\x01\x40' \
  '\x00\x00\x00\x60\x66\x66\x0a\x40\x00\x00\x00\xa0\x99\x99\x11\x40' \
  '\x00\x00\x00\x00\x00\x00\x16\x40\x00\x00\x00\x60\x66\x66\x1a\x40' \
  '\x00\x00\x00\xc0\xcc\xcc\x1e\x40' >"$work/linspace.f64"
expect_counts "float64 without a range" "2 1 0 1 1 1 1 1 1 2" --input "$work/linspace.f64" --bins 10 --check
# np.histogram(np.float32([0.02]), bins=2) in NumPy 2.4.6: widened to 0.02 ± 0.5 in float32 (NumPy 1.24.2: 0 1)
printf '\x0a\xd7\xa3\x3c' >"$work/one.f32"
expect_counts "one float32 value" "1 0" --input "$work/one.f32" --bins 2 --check
# np.histogram(np.array([0.5, 0.25, 1.0, 2.0], np.float32), bins=3)
printf '\x00\x00\x00\x3f\x00\x00\x80\x3e\x00\x00\x80\x3f\x00\x00\x00\x40' >"$work/ok.f32"
expect_counts "float32" "2 1 1" --input "$work/ok.f32" --bins 3
# ranges a few subnormals wide, where NumPy 2's first guess is more than one bin off and its one step decides (the
# edges alone would say 1 1 1 1 4): np.histogram(np.arange(8) * 5e-324, 5) and
# np.histogram((np.arange(8) * np.float32(1e-45)).astype(np.float32), 5), every method checked
printf '\x00\x00\x00\x00\x00\x00\x00\x00\x01\x00\x00\x00\x00\x00\x00\x00\x02\x00\x00\x00\x00\x00\x00\x00'\
'\x03\x00\x00\x00\x00\x00\x00\x00\x04\x00\x00\x00\x00\x00\x00\x00\x05\x00\x00\x00\x00\x00\x00\x00'\
'\x06\x00\x00\x00\x00\x00\x00\x00\x07\x00\x00\x00\x00\x00\x00\x00' >"$work/subnormal.f64"
expect_counts "float64 subnormals, checked" "1 1 1 2 3" --input "$work/subnormal.f64" --bins 5 --method all --check
printf '\x00\x00\x00\x00\x01\x00\x00\x00\x02\x00\x00\x00\x03\x00\x00\x00\x04\x00\x00\x00\x05\x00\x00\x00'\
'\x06\x00\x00\x00\x07\x00\x00\x00' >"$work/subnormal.f32"
expect_counts "float32 subnormals, checked" "1 1 1 2 3" --input "$work/subnormal.f32" --bins 5 --method all --check
# generated Zipf values: every method gives the counts of the default method, which add up to N
"$app" --generate zipf --n 5000 --seed 3 --bins 5 --out "$work/zipf.txt" >/dev/null || fail "zipf: exit status $?"
[[ $(awk '{ s += $1 } END { print s }' "$work/zipf.txt") == 5000 ]] || fail "zipf: counts do not add up to 5000"
expect_counts "generated, every method" "$(tr '\n' ' ' <"$work/zipf.txt" | sed 's/ $//')" \
  --generate zipf --n 5000 --seed 3 --bins 5 --method all
rm -f "$work/zipf.txt"
# --check: every method against the sequential count, one verdict each, on the edge cases and on float32
expect_counts "values on edges, checked" "1 1 2 0 1 2 1 0 1 2" --input "$data/tenths.txt" --bins 10 --range 0:1 \
  --method all --check
methods=$([[ $build == cuda ]] && echo 6 || echo 5)
[[ $(grep -c ' ok$' "$work/stdout") == "$methods" ]] &&
  grep -q "^all $methods methods agree, and with the sequential count$" "$work/stdout" ||
  fail "values on edges, checked: not one 'ok' per method and the agreement line: $(cat "$work/stdout")"
expect_counts "float32, checked" "2 1 1" --input "$work/ok.f32" --bins 3 --check
grep -q '^the counts agree with the sequential count$' "$work/stdout" ||
  fail "float32, checked: no agreement line: $(cat "$work/stdout")"
"$app" --help >/dev/null || fail "--help exits $?"

# All outputs or none. An output path that is a folder is refused before anything is computed; when an output
# fails as it is written (/dev/full, written straight through at commit), the other one does not appear.
mkdir "$work/folder"
for failing in --out --png; do
  for target in "$work/folder" /dev/full; do
    if [[ $failing == --out ]]; then
      paths=("$target" "$work/histogram.png")
    else
      paths=("$work/counts.txt" "$target")
    fi
    "$app" --input "$data/tenths.txt" --bins 10 --range 0:1 --out "${paths[0]}" --png "${paths[1]}" >/dev/null \
      2>"$work/stderr"
    status=$?
    if [[ $target == /dev/full ]]; then
      ((status == 1)) || fail "$failing into $target: exit status $status, expected 1"
      grep -qF "/dev/full: writing failed" "$work/stderr" || fail "$failing into $target: stderr $(cat "$work/stderr")"
    else
      ((status == 2)) || fail "$failing on a folder: exit status $status, expected 2"
      grep -qF "folder: is a directory" "$work/stderr" || fail "$failing on a folder: stderr $(cat "$work/stderr")"
    fi
    left=$(compgen -G "$work/counts.txt*"; compgen -G "$work/histogram.png*"; compgen -G "$work/folder.*")
    [[ -z $left ]] || fail "$failing into $target: left files behind: $left"
    rm -f "$work"/counts.txt* "$work"/histogram.png* "$work"/folder.*
  done
done
# ... and the --out that a failed --png takes back is the run's, not what was there before: an existing file keeps
# its text, and a symbolic link stays, naming a file that keeps its text.
printf 'old\n' >"$work/kept.txt"
printf 'old\n' >"$work/real.txt"
ln -s real.txt "$work/link.txt"
for out in kept.txt link.txt; do
  "$app" --input "$data/tenths.txt" --bins 10 --range 0:1 --out "$work/$out" --png /dev/full >/dev/null \
    2>"$work/stderr"
  status=$?
  ((status == 1)) || fail "--out $out, --png /dev/full: exit status $status, expected 1"
  [[ $(cat "$work/$out" 2>/dev/null) == old ]] || fail "--out $out, --png /dev/full: $out no longer holds 'old'"
done
[[ -L $work/link.txt && $(cat "$work/real.txt") == old ]] || fail "--png /dev/full: the link or its file changed"
left=$(compgen -G "$work/*.partial-*")
[[ -z $left ]] || fail "--png /dev/full: left temporaries behind: $left"
rm -f "$work/kept.txt" "$work/real.txt" "$work/link.txt"

finish dpt-histogram

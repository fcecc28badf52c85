#!/usr/bin/env bash
# dpt-scan and dpt-histogram under mpiexec with 1, 2 and 3 ranks (and 5, where ranks hold nothing) against the
# same command in one process: the same --out (and --png) byte for byte for integers and counts, floats within
# --check's bound; bad input exits 2 with one line on stderr and no output, whichever step refuses it.
#   usage: apps_across_ranks_test.sh MPIEXEC PATH/TO/dpt-scan PATH/TO/dpt-histogram HISTOGRAM_DATA_DIR
set -uo pipefail
mpiexec=$1
scan=$2
histogram=$3
data=$4
source "$(dirname "${BASH_SOURCE[0]}")/../test_support/app_test_lib.sh"
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMP_NUM_THREADS=1
oversubscribe=()
"$mpiexec" --version 2>/dev/null | grep -qE "Open MPI|OpenRTE" && oversubscribe=(--oversubscribe -q)

# across RANKS PROGRAM ARGS…: PROGRAM under mpiexec on RANKS ranks
across() {
  local ranks=$1
  shift
  "$mpiexec" -n "$ranks" "${oversubscribe[@]}" "$@"
}

# same_files NAME PROGRAM "ARGS…" FILE…: the files that PROGRAM ARGS writes alone, and on 1, 2 and 3 ranks (and on
# $more_ranks, when set), are equal
same_files() {
  local name=$1 program=$2 args=$3
  shift 3
  local ranks file
  # shellcheck disable=SC2086  # ARGS is a word list
  "$program" $args >"$work/stdout" 2>"$work/stderr" || { fail "$name: one process failed: $(cat "$work/stderr")"; return; }
  for file in "$@"; do mv "$work/$file" "$work/one-$file"; done
  for ranks in 1 2 3 ${more_ranks:-}; do
    # shellcheck disable=SC2086
    if ! across "$ranks" "$program" $args >"$work/stdout" 2>"$work/stderr"; then
      fail "$name on $ranks ranks: exit status not 0: $(cat "$work/stderr")"
      continue
    fi
    for file in "$@"; do
      cmp -s "$work/one-$file" "$work/$file" || fail "$name on $ranks ranks: $file differs from one process's"
      rm -f "$work/$file"
    done
  done
  for file in "$@"; do rm -f "$work/one-$file"; done
}

# Values for the scans: a text file and raw files.
printf '5\n-3\n\n7\n2147483000\n-2147483000\n1\n' >"$work/values.txt"
python3 -c "
import random, struct
random.seed(5)
open('$work/values.i64', 'wb').write(struct.pack('<30011q', *[random.randrange(-10**12, 10**12) for _ in range(30011)]))
open('$work/values.f32', 'wb').write(struct.pack('<30011f', *[random.uniform(-1, 1) for _ in range(30011)]))
open('$work/values.u8', 'wb').write(bytes(random.randrange(256) for _ in range(4099)))
open('$work/values.f64', 'wb').write(struct.pack('<4099d', *[random.gauss(3, 2) for _ in range(4099)]))
"

o="--out $work/prefix.txt"
same_files "scan of generated i32, every implementation" "$scan" "--n 100003 --impl all --check $o" prefix.txt
same_files "exclusive scan of generated i64" "$scan" "--n 65537 --type i64 --seed 9 --exclusive --impl thrust $o" prefix.txt
same_files "scan of a text file" "$scan" "--input $work/values.txt --impl single-pass --check $o" prefix.txt
same_files "exclusive scan of a raw i64 file" "$scan" "--input $work/values.i64 --exclusive --impl thrust --check $o" prefix.txt
same_files "scan of nothing" "$scan" "--n 0 --check $o" prefix.txt
more_ranks=5 same_files "scan of two values, ranks with nothing" "$scan" "--n 2 --impl lecture $o" prefix.txt
# floats are added in another order across ranks: within --check's bound, not byte for byte
for ranks in 2 3; do
  across "$ranks" "$scan" --input "$work/values.f32" --check --impl thrust >"$work/stdout" 2>"$work/stderr" ||
    fail "f32 scan on $ranks ranks: not within the bound: $(cat "$work/stderr") $(cat "$work/stdout")"
done

o="--out $work/counts.txt --png $work/counts.png"
same_files "histogram of generated values, every method" "$histogram" \
  "--generate normal --n 100003 --bins 50 --method all --check $o" counts.txt counts.png
same_files "histogram of a raw f32 file, the data's range" "$histogram" "--input $work/values.f32 --bins 13 --check $o" \
  counts.txt counts.png
same_files "histogram of a raw u8 file" "$histogram" "--input $work/values.u8 --bins 256 --method privatized $o" \
  counts.txt counts.png
same_files "histogram of a raw f64 file with a range" "$histogram" \
  "--input $work/values.f64 --bins 7 --range 0:5 --method reduce-by-key --check $o" counts.txt counts.png
more_ranks=5 same_files "histogram of equal values, ranks with nothing" "$histogram" "--input $data/constant.txt --bins 4 --check $o" counts.txt counts.png
same_files "histogram with NaN and Inf, counted as dropped" "$histogram" "--input $data/nan.txt --bins 3 --range 0:1 $o" \
  counts.txt counts.png

# Bad input: one line, exit 2, no output, on every rank count (rank 0 refuses it, or every rank does).
for ranks in 1 3; do
  app=across_$ranks
  eval "$app() { across $ranks \"\$@\"; }"
  outputs=(--out "$work/bad.txt")
  printf '1\nx\n' >"$work/bad_value.txt"
  expect_bad "scan of a bad value on $ranks ranks" "bad_value.txt:2: 'x' is not a valid i32" "$scan" \
    --input "$work/bad_value.txt"
  printf '2147483647\n1\n' >"$work/overflow.txt"
  expect_bad "scan that overflows on $ranks ranks" "overflow i32 at element 1" "$scan" --input "$work/overflow.txt"
  expect_bad "an unknown option on $ranks ranks" "unknown option --bogus" "$scan" --bogus
  expect_bad "histogram of a bad number on $ranks ranks" "bad_number.txt:3:" "$histogram" \
    --input "$data/bad_number.txt" --bins 4
  expect_bad "histogram of NaN without a range on $ranks ranks" "have no range of their own" "$histogram" \
    --input "$data/nan.txt" --bins 4
  expect_bad "histogram with too many bins on $ranks ranks" "too many bins" "$histogram" \
    --input "$work/values.f32" --bins 100000000 --range 0:1e-30
  # an output that names an input: refused, and the input left as it was
  cp "$work/values.f64" "$work/input-copy.f64"
  across "$ranks" "$histogram" --input "$work/values.f64" --bins 4 --out "$work/values.f64" >"$work/stdout" 2>"$work/stderr"
  status=$?
  [[ $status -eq 2 && $(wc -l <"$work/stderr") -eq 1 ]] && grep -q "must not replace an input" "$work/stderr" ||
    fail "histogram whose output is its input on $ranks ranks: status $status: $(cat "$work/stderr")"
  cmp -s "$work/values.f64" "$work/input-copy.f64" || fail "the input of the refused histogram changed on $ranks ranks"
done

finish "across-ranks app"

#!/usr/bin/env bash
# dpt-scan, dpt-histogram, dpt-spmv and dpt-grid under mpiexec with 1, 2 and 3 ranks (and 5, where ranks hold
# nothing) against the same command in one process: the same output files byte for byte for integer scans, counts,
# every product y = A*x (float and double) and the grid's cell counts, neighbour counts and picture; float scans
# within --check's bound; bad input exits 2 with one line on stderr and no output, whichever step refuses it.
#   usage: apps_across_ranks_test.sh MPIEXEC PATH/TO/dpt-scan PATH/TO/dpt-histogram HISTOGRAM_DATA_DIR
#                                    PATH/TO/dpt-spmv MATRIX_DIR PATH/TO/dpt-grid GRID_DATA_DIR
set -uo pipefail
mpiexec=$1
scan=$2
histogram=$3
data=$4
spmv=$5
matrices=$6
grid=$7
grid_data=$8
source "$(dirname "${BASH_SOURCE[0]}")/../test_support/app_test_lib.sh"
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMP_NUM_THREADS=1
oversubscribe=()
if "$mpiexec" --version 2>/dev/null | grep -qE "Open MPI|OpenRTE"; then
  oversubscribe=(--oversubscribe -q)
  # one machine: shared memory only, which halves Open MPI's start (it probes no network)
  export OMPI_MCA_btl=self,vader OMPI_MCA_pml=ob1
fi

# across RANKS PROGRAM ARGS…: PROGRAM under mpiexec on RANKS ranks
across() {
  local ranks=$1
  shift
  "$mpiexec" -n "$ranks" "${oversubscribe[@]}" "$@"
}

# same_files NAME PROGRAM "ARGS…" FILE…: the files that PROGRAM ARGS writes alone, and on 1, 2 and 3 ranks (on
# $ranks_list instead, when set; and on $more_ranks, when set), are equal
same_files() {
  local name=$1 program=$2 args=$3
  shift 3
  local ranks file
  # shellcheck disable=SC2086  # ARGS is a word list
  "$program" $args >"$work/stdout" 2>"$work/stderr" || { fail "$name: one process failed: $(cat "$work/stderr")"; return; }
  for file in "$@"; do mv "$work/$file" "$work/one-$file"; done
  for ranks in ${ranks_list:-1 2 3} ${more_ranks:-}; do
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

# Every real matrix, in double and in float (each row's products are added in entry order on whichever rank holds
# it), x from a seeded generator, from a file, or all ones. (One rank is the single-process cut of the cases below.)
o="--out $work/y.mtx --repeat 1"
for matrix in "$matrices"/*.mtx; do
  name=$(basename "$matrix")
  ranks_list="2 3" same_files "y = A*x for $name in double" "$spmv" "$matrix --x-random 3 --check $o" y.mtx
  ranks_list="3" same_files "y = A*x for $name in float" "$spmv" "$matrix --x-random 4 --precision float $o" y.mtx
done
python3 -c "
import random
random.seed(7)
print('%%MatrixMarket matrix array real general\n67 1')
for _ in range(67): print(repr(random.uniform(-10, 10)))
" >"$work/x67.mtx"
same_files "y = A*x with x from a file" "$spmv" "$matrices/west0067.mtx --x $work/x67.mtx $o" y.mtx
# the report says how MPI reached the halo: in place in host memory on the CPU systems, GPU memory on CUDA
grep -qE "^  halo memory: (host memory, in place|GPU memory)" "$work/stdout" ||
  fail "dpt-spmv on 3 ranks does not say how the halo was exchanged: $(cat "$work/stdout")"
printf '%%%%MatrixMarket matrix coordinate real general\n2 3 3\n1 1 0.5\n2 3 -1.25\n1 3 3\n' >"$work/two_rows.mtx"
more_ranks=5 same_files "y = A*x for two rows, ranks with nothing" "$spmv" "$work/two_rows.mtx --x-random 5 $o" y.mtx
printf '%%%%MatrixMarket matrix coordinate real general\n4 4 0\n' >"$work/no_entries.mtx"
same_files "y = A*x for a matrix without entries" "$spmv" "$work/no_entries.mtx $o" y.mtx

# Particles into cells and their neighbours: clustered (many halo particles), uniform in 3-D and in float, a file,
# no particles, and fewer particles than ranks.
o="--cells-out $work/cells.txt --neighbors-out $work/neighbors.txt --png $work/grid.png"
same_files "grid of clustered particles with their neighbours" "$grid" \
  "--generate clustered --n 20011 --dims 32x32 --radius 0.03 --check $o" cells.txt neighbors.txt grid.png
same_files "3-D grid in float" "$grid" "--generate uniform --n 30011 --dims 16x16x16 --radius 0.0625 --precision float $o" \
  cells.txt neighbors.txt grid.png
same_files "grid of a file's particles, clamped" "$grid" \
  "--input $grid_data/seven.csv --dims 4x4 --domain 0,0:3,3 --clamp --radius 0.75 --check $o" cells.txt neighbors.txt grid.png
same_files "grid without particles" "$grid" "--input $grid_data/empty.csv --dims 4x4 --domain 0,0:1,1 --cells-out $work/cells.txt" \
  cells.txt
more_ranks=5 same_files "grid of three particles, ranks with nothing" "$grid" \
  "--generate uniform --n 3 --dims 8x8 --radius 0.1 $o" cells.txt neighbors.txt grid.png
grep -qE "^  particles exchanged in (host memory, in place|GPU memory)" "$work/stdout" ||
  fail "dpt-grid on 5 ranks does not say how the particles were exchanged: $(cat "$work/stdout")"

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
  printf '%%%%MatrixMarket matrix coordinate real general\n3 3 2\n1 1 1.0\n4 1 2.0\n' >"$work/bad_row.mtx"
  expect_bad "y = A*x with a row outside the matrix on $ranks ranks" "bad_row.mtx:4: row index '4' is out of range" \
    "$spmv" "$work/bad_row.mtx"
  expect_bad "y = A*x with an x of the wrong length on $ranks ranks" "x67.mtx:2: the vector has 67 entries, expected" \
    "$spmv" "$matrices/karate.mtx" --x "$work/x67.mtx"
  printf '%%%%MatrixMarket matrix coordinate real general\n2 2 2\n1 1 3e38\n1 2 3e38\n' >"$work/overflow.mtx"
  expect_bad "y = A*x that overflows float on $ranks ranks" "row 1 of y = A*x overflows float" "$spmv" \
    "$work/overflow.mtx" --precision float
  outputs=(--cells-out "$work/bad_cells.txt" --neighbors-out "$work/bad_neighbors.txt")
  expect_bad "grid with a particle outside the domain on $ranks ranks" "outside.csv:3: particle 1 at (5, 1) lies outside" \
    "$grid" --input "$grid_data/outside.csv" --dims 4x4 --domain 0,0:1,1 --radius 0.1
  expect_bad "grid with a NaN coordinate on $ranks ranks" "nan.csv:" "$grid" --input "$grid_data/nan.csv" --dims 4x4 \
    --domain 0,0:1,1 --radius 0.1
  expect_bad "grid with a radius past a cell on $ranks ranks" "--radius" "$grid" --generate uniform --n 10 --dims 4x4 \
    --radius 0.5
  outputs=(--out "$work/bad.txt")
  # an output that names an input: refused, and the input left as it was
  cp "$work/values.f64" "$work/input-copy.f64"
  across "$ranks" "$histogram" --input "$work/values.f64" --bins 4 --out "$work/values.f64" >"$work/stdout" 2>"$work/stderr"
  status=$?
  [[ $status -eq 2 && $(wc -l <"$work/stderr") -eq 1 ]] && grep -q "must not replace an input" "$work/stderr" ||
    fail "histogram whose output is its input on $ranks ranks: status $status: $(cat "$work/stderr")"
  cmp -s "$work/values.f64" "$work/input-copy.f64" || fail "the input of the refused histogram changed on $ranks ranks"
done

finish "across-ranks app"

#!/usr/bin/env bash
# Every app, every output option: an output that is one of the run's inputs, however it is spelt (the same path,
# another spelling, a symbolic link, a hard link), exits 2 with one line naming both options, leaves the input
# byte for byte as it was and writes nothing; a distinct output is written (so the refusal is not all the app
# does). And the temporaries a killed run leaves: the next run that writes the output removes those whose process
# is gone, and keeps a live one's.
#   usage: outputs_and_inputs_test.sh DPT-SPMV DPT-HISTOGRAM DPT-SCAN DPT-GRID MATRIX_DIR
set -uo pipefail
spmv=$1 histogram=$2 scan=$3 grid=$4 matrices=$5
# shellcheck disable=SC2034  # skip_without_device (app_test_lib.sh) runs $app
app=$spmv
source "$(dirname "${BASH_SOURCE[0]}")/../test_support/app_test_lib.sh"
skip_without_device "$matrices/karate.mtx" --repeat 1

# The inputs in $in (the apps run there), copies to compare with in $work/pristine, the apps' messages in $work.
in=$work/in
mkdir "$in" "$work/pristine"
cp "$matrices/karate.mtx" "$in/a.mtx"
{
  printf '%%%%MatrixMarket matrix array real general\n34 1\n'
  for ((i = 0; i < 34; ++i)); do echo 1; done
} >"$in/x.mtx"
printf '3\n1\n4\n1\n5\n9\n2\n6\n' >"$in/v.txt"
printf 'x,y\n0.1,0.1\n0.9,0.2\n0.4,0.8\n' >"$in/p.csv"
cp "$in"/{a.mtx,x.mtx,v.txt,p.csv} "$work/pristine/"
ln -s a.mtx "$in/a-link.mtx"
ln "$in/v.txt" "$in/v-hard.txt"

# refused NAME INPUT_OPTION OUTPUT_OPTION PROGRAM ARGS…: exit 2, one line naming both options, inputs unchanged,
# no file beside them (no temporary, no stray output)
refused() {
  local name=$1 input_option=$2 output_option=$3 program=$4
  shift 4
  local before after
  before=$(ls -A "$in")
  "$program" "$@" >"$work/stdout" 2>"$work/stderr"
  local status=$? message
  message=$(cat "$work/stderr")
  [[ $status -eq 2 ]] || fail "$name: exit status $status, expected 2 ($message)"
  [[ $message == *"$output_option "*": the same file as the input $input_option "* ]] ||
    fail "$name: the error does not name $output_option and $input_option: $message"
  [[ $(wc -l <"$work/stderr") -eq 1 ]] || fail "$name: error is not one line: $message"
  for f in a.mtx x.mtx v.txt p.csv; do
    cmp -s "$in/$f" "$work/pristine/$f" || fail "$name: $f was changed"
  done
  after=$(ls -A "$in")
  [[ $before == "$after" ]] || fail "$name: files appeared or vanished: $(diff <(echo "$before") <(echo "$after") | tr '\n' ' ')"
  cp "$work/pristine"/* "$in/"  # so that one failure does not cascade (cp keeps the hard link)
}

# written NAME OUTPUT PROGRAM ARGS…: exit 0 and OUTPUT exists
written() {
  local name=$1 output=$2 program=$3
  shift 3
  "$program" "$@" >/dev/null 2>"$work/stderr" || fail "$name: exit status $?: $(cat "$work/stderr")"
  [[ -s $output ]] || fail "$name: $output was not written"
  rm -f "$output"
}

cd "$in" || exit 1
for spelling in a.mtx ./a.mtx "$in/a.mtx" a-link.mtx; do
  refused "dpt-spmv --out $spelling" MATRIX --out "$spmv" a.mtx --repeat 1 --out "$spelling"
done
refused "dpt-spmv --out naming --x" --x --out "$spmv" a.mtx --x x.mtx --repeat 1 --out ./x.mtx
written "dpt-spmv --out elsewhere" y.mtx "$spmv" a.mtx --x x.mtx --repeat 1 --out y.mtx

for spelling in v.txt ./v.txt v-hard.txt; do
  refused "dpt-histogram --out $spelling" --input --out "$histogram" --input v.txt --bins 2 --out "$spelling"
  refused "dpt-histogram --png $spelling" --input --png "$histogram" --input v.txt --bins 2 --png "$spelling"
  refused "dpt-scan --out $spelling" --input --out "$scan" --input v.txt --type i32 --out "$spelling"
done
written "dpt-histogram --out elsewhere" counts.txt "$histogram" --input v.txt --bins 2 --out counts.txt
written "dpt-scan --out elsewhere" sums.txt "$scan" --input v.txt --type i32 --out sums.txt

for option in --cells-out --neighbors-out --png; do
  refused "dpt-grid $option naming the input" --input "$option" "$grid" --input p.csv --dims 2x2 --radius 0.1 \
    "$option" ./p.csv
done
written "dpt-grid --cells-out elsewhere" cells.txt "$grid" --input p.csv --dims 2x2 --cells-out cells.txt

# Standard input and output are not files an output replaces: a terminal or pipe may be both.
printf '1\n2\n' | "$scan" --input /dev/stdin --type i32 --out /dev/stdout >"$work/piped" 2>"$work/stderr" ||
  fail "dpt-scan from /dev/stdin to /dev/stdout: exit status $?: $(cat "$work/stderr")"
grep -qx 3 "$work/piped" || fail "dpt-scan from /dev/stdin to /dev/stdout: no sums in its output"

# A killed run's temporary (its process is gone) is removed by the next run that writes the output; a live
# process's temporary stays.
sh -c 'exit 0' &
dead=$!
wait "$dead"
: >"sums.txt.partial-$dead-0"
: >"sums.txt.partial-$$-0"
: >"other.txt.partial-$dead-0"
written "dpt-scan after a killed run" sums.txt "$scan" --input v.txt --type i32 --out sums.txt
[[ ! -e sums.txt.partial-$dead-0 ]] || fail "a dead run's temporary was not removed"
[[ -e sums.txt.partial-$$-0 ]] || fail "a live process's temporary was removed"
[[ -e other.txt.partial-$dead-0 ]] || fail "another output's temporary was removed"

finish outputs_and_inputs

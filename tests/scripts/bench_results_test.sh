#!/usr/bin/env bash
# How scripts/run-bench keeps its results (scripts/bench_results.sh), with a stand-in benchmark: a rerun replaces
# a family's results only when every process succeeded, a failed one leaves the earlier results untouched, and
# every results file names the command that made it and its environment. Also what run-bench refuses up front.
#   tests/scripts/bench_results_test.sh
set -uo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/../../scripts/bench_results.sh"
source "$(dirname "${BASH_SOURCE[0]}")/../test_support/script_test_lib.sh"

# The stand-in: writes Google Benchmark's JSON shape to --benchmark_out, holding its other arguments and its
# process number; exits 1 instead in the process numbered $FAIL_AT.
bench=$work/bench_fake
cat >"$bench" <<'FAKE'
#!/usr/bin/env bash
count_file=$(dirname "$0")/processes
process=$(($(cat "$count_file" 2>/dev/null || echo 0) + 1))
echo "$process" >"$count_file"
[[ $process == "${FAIL_AT:-0}" ]] && { echo "fake: failing" >&2; exit 1; }
args=()
for arg; do
  case $arg in
    --benchmark_out=*) out=${arg#--benchmark_out=} ;;
    *) args+=("$arg") ;;
  esac
done
printf '{"context": {"args": "%s"}, "benchmarks": [{"name": "fake/%d"}]}\n' "${args[*]}" "$process" >"$out"
FAKE
chmod +x "$bench"
results=$work/results
scratch=$work/scratch
context_of() {  # context_of FILE KEY: the value in a (possibly gzipped) results file's context
  python3 -c 'import gzip, json, sys
p = sys.argv[1]
f = gzip.open(p, "rt") if p.endswith(".gz") else open(p)
print(json.load(f)["context"][sys.argv[2]])' "$1" "$2"
}

# Earlier results: two processes of omp-fake, a stale third one, and another family.
mkdir -p "$results"
for f in omp-fake.1 omp-fake.2 omp-fake.3 tbb-fake.1; do echo "earlier $f" | gzip -n >"$results/$f.json.gz"; done
earlier=$(cd "$results" && sha256sum ./*)

# A rerun that fails in its second process leaves every earlier file as it was.
rm -f "$work/processes"
if FAIL_AT=2 dpt_run_family "$bench" omp-fake 3 "$results" "$scratch" 1 "run-bench --docs" --size=4 >"$work/out" 2>&1; then
  fail "a failed process was reported as success"
fi
[[ $(cd "$results" && sha256sum ./*) == "$earlier" ]] || fail "a failed rerun changed the earlier results"
grep -q "the earlier results stay" "$work/out" || fail "a failed rerun does not say so: $(cat "$work/out")"
[[ $(cat "$work/processes") == 2 ]] || fail "processes went on after the failing one"
kept=$(ls -d "$scratch"/bench-fresh.* 2>/dev/null | head -n 1)
[[ -f $kept/omp-fake.1.json ]] || fail "the failed rerun's finished process was not kept for a look"

# A rerun whose processes all succeed replaces the family's files (the stale third too) and no other family's.
rm -rf "$work/processes" "$scratch"
OMP_WAIT_POLICY=passive dpt_run_family "$bench" omp-fake 2 "$results" "$scratch" 1 \
  "scripts/run-bench --docs --filter=fake" --size=4 >"$work/out" 2>&1 || fail "a good rerun failed: $(cat "$work/out")"
[[ $(cd "$results" && ls | tr '\n' ' ') == "omp-fake.1.json.gz omp-fake.2.json.gz tbb-fake.1.json.gz " ]] ||
  fail "after a good rerun the results are: $(ls "$results" | tr '\n' ' ')"
for p in 1 2; do
  file=$results/omp-fake.$p.json.gz
  [[ $(context_of "$file" dpt_command 2>&1) == "scripts/run-bench --docs --filter=fake" ]] ||
    fail "omp-fake.$p does not name its command: $(context_of "$file" dpt_command 2>&1)"
  [[ $(context_of "$file" dpt_environment 2>&1) == "OMP_WAIT_POLICY=passive" ]] ||
    fail "omp-fake.$p does not record its environment: $(context_of "$file" dpt_environment 2>&1)"
  [[ $(context_of "$file" args 2>&1) == "--size=4 --benchmark_out_format=json" ]] ||
    fail "omp-fake.$p was not run with the family's arguments: $(context_of "$file" args 2>&1)"
  # gzip's header: FLG (byte 3) without FNAME (0x08), MTIME (bytes 4–7) zero
  python3 -c 'import sys; h = open(sys.argv[1], "rb").read(10); sys.exit(h[:2] != b"\x1f\x8b" or h[3] & 8 or any(h[4:8]))' \
    "$file" || fail "omp-fake.$p.json.gz is not a gzip without name and time (gzip -n)"
done
zcat "$results/tbb-fake.1.json.gz" | grep -q "earlier tbb-fake.1" || fail "another family's results changed"
[[ -z $(ls "$scratch") ]] || fail "a good rerun left its fresh folder behind: $(ls "$scratch")"

# The same bytes measured again give the same files (gzip -n stores no name or time).
before=$(sha256sum "$results/omp-fake.1.json.gz")
rm -f "$work/processes"
OMP_WAIT_POLICY=passive dpt_run_family "$bench" omp-fake 1 "$results" "$scratch" 1 "scripts/run-bench --docs --filter=fake" --size=4 \
  >/dev/null 2>&1 || fail "the repeated rerun failed"
[[ $(sha256sum "$results/omp-fake.1.json.gz") == "$before" ]] || fail "the same results gave a different file"

# Without gzip (results under build/) the files stay JSON.
dpt_run_family "$bench" cpp-fake 1 "$results" "$scratch" 0 "scripts/run-bench" >/dev/null 2>&1 ||
  fail "the uncompressed rerun failed"
[[ -f $results/cpp-fake.1.json && $(context_of "$results/cpp-fake.1.json" dpt_command) == "scripts/run-bench" ]] ||
  fail "the uncompressed rerun did not write cpp-fake.1.json with its command"

# scripts/run-bench refuses, before it builds anything, a --docs run that would publish quick results and a
# filter that matches no family
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
"$root/scripts/run-bench" --docs omp >"$work/out" 2>&1
status=$?
((status == 2)) && grep -q "needs --full" "$work/out" ||
  fail "run-bench --docs without --full: exit status $status, $(cat "$work/out")"
"$root/scripts/run-bench" --filter=no_such_family >"$work/out" 2>&1
status=$?
((status == 2)) && grep -q "matches no family" "$work/out" ||
  fail "run-bench with a filter matching nothing: exit status $status, $(cat "$work/out")"

finish bench_results

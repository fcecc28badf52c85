# shellcheck shell=bash
# How scripts/run-bench keeps benchmark results: source it, don't run it (tests/scripts/bench_results_test.sh
# tests it with a stand-in benchmark).

# Writes COMMAND into the results file FILE's context (dpt_command, which bench/plot quotes), and the environment
# the benchmark ran in (dpt_environment: OMP_WAIT_POLICY and the niceness, which bench/plot states); a file cut
# short by a failure is left as it is. (Google Benchmark's --benchmark_context cannot carry an '=' or ','.)
dpt_record_command() {  # dpt_record_command FILE COMMAND
  [[ -f $1 ]] || return 0
  python3 - "$1" "$2" <<'PYTHON' 2>/dev/null || true
import json, os, sys
path, command = sys.argv[1], sys.argv[2]
with open(path) as f:
    results = json.load(f)
context = results.setdefault("context", {})
context["dpt_command"] = command
policy = os.environ.get("OMP_WAIT_POLICY")
context["dpt_environment"] = ", ".join([f"OMP_WAIT_POLICY={policy}" if policy else "OMP_WAIT_POLICY not set"]
                                       + ([f"niceness {os.nice(0)}"] if os.nice(0) else []))
with open(path, "w") as f:
    json.dump(results, f, indent=2)
PYTHON
}

# Runs EXECUTABLE PROCESSES times with ARGS, each process writing NAME.P.json into a fresh folder under SCRATCH,
# and only when every process succeeded replaces NAME's earlier results in RESULTS with them (gzipped with
# `gzip -n`, no name or time in the file, when GZIP is 1, so that a rerun measuring the same bytes changes
# nothing). A failed run leaves the earlier results as they were and its own in the fresh folder, and returns 1.
dpt_run_family() {  # dpt_run_family EXECUTABLE NAME PROCESSES RESULTS SCRATCH GZIP COMMAND [ARGS...]
  local executable=$1 name=$2 processes=$3 results=$4 scratch=$5 gzip=$6 command=$7 fresh process
  shift 7
  mkdir -p "$scratch" "$results" && fresh=$(mktemp -d "$scratch/bench-fresh.XXXXXX") || return 1
  for ((process = 1; process <= processes; process++)); do
    if ! "$executable" "$@" --benchmark_out="$fresh/$name.$process.json" --benchmark_out_format=json; then
      echo "run-bench: $executable failed (process $process); the earlier results stay, this run's are in $fresh"
      return 1
    fi
    dpt_record_command "$fresh/$name.$process.json" "$command"
  done
  if ((gzip)); then
    gzip -9 -n "$fresh"/*.json || return 1
  fi
  # the earlier results go only once the new ones are ready to take their place
  rm -f "$results/$name".json "$results/$name".[0-9]*.json "$results/$name".json.gz "$results/$name".[0-9]*.json.gz
  mv "$fresh"/* "$results"/ && rmdir "$fresh"
}

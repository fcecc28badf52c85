# Shared by the apps' end-to-end scripts (tests/*/app_test.sh). Source it after setting `app` (the program
# under test). Besides $work, fail and finish (script_test_lib.sh), it provides:
#   skip_without_device ARGS…  exits 77 ("skipped", for ctest) when a CUDA build cannot run ARGS here: the app
#                           says "error: no CUDA device" (any other failure, a CUDA error too, is the test's)
#   expect_bad NAME FRAGMENT ARGS…  the app, given ARGS plus the output options in the array `outputs`
#                           (paths under $work), exits 2 with a one-line error holding FRAGMENT and leaves
#                           none of those outputs behind, not even a temporary
#   expect_refused NAME FRAGMENT ARGS…  the same with exit status 1: an input too large for this machine's memory
source "$(dirname "${BASH_SOURCE[0]}")/script_test_lib.sh"
outputs=()

skip_without_device() {
  if ! "$app" "$@" >"$work/probe.out" 2>&1 && grep -q "error: no CUDA device" "$work/probe.out"; then
    echo "skipped: no device"
    exit 77
  fi
  rm -f "$work/probe.out"
}

# The output options' paths: the arguments after each option in `outputs`.
output_paths() {
  local i
  for ((i = 1; i < ${#outputs[@]}; i += 2)); do echo "${outputs[i]}"; done
}

# expect_exit STATUS NAME FRAGMENT ARGS…: expect_bad's checks, with the given exit status
expect_exit() {
  local expected=$1 name=$2 fragment=$3
  shift 3
  "$app" "$@" "${outputs[@]}" >"$work/stdout" 2>"$work/stderr"
  local status=$? path left
  [[ $status -eq $expected ]] || fail "$name: exit status $status, expected $expected ($(cat "$work/stderr"))"
  grep -qF -- "$fragment" "$work/stderr" || fail "$name: stderr lacks '$fragment': $(cat "$work/stderr")"
  [[ $(wc -l <"$work/stderr") -eq 1 ]] || fail "$name: error is not one line: $(cat "$work/stderr")"
  while read -r path; do
    left=$(compgen -G "$path*")
    [[ -z $left ]] || fail "$name: left files behind: $left"
    rm -f "$path"*
  done < <(output_paths)
}

expect_bad() { expect_exit 2 "$@"; }
expect_refused() { expect_exit 1 "$@"; }


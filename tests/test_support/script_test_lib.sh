# shellcheck shell=bash
# Shared by the end-to-end test scripts (tests/scripts/*_test.sh, and through app_test_lib.sh the apps' ones).
# Source it. It provides:
#   $work          a scratch folder, removed on exit
#   fail MESSAGE   counts a failure
#   finish NAME    prints the summary and exits 1 if anything failed
#   expect_status NAME STATUS   fails unless $work/NAME/status holds STATUS (shows the end of $work/NAME/log)
#   fake_gpu_tools DIR   writes fake nvcc (CUDA 13.0) and nvidia-smi (one H200; none while FAKE_NO_GPU is set)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
failures=0

fail() {
  echo "FAILED: $*"
  failures=$((failures + 1))
}

finish() {
  if ((failures > 0)); then
    echo "$failures $1 checks failed"
    exit 1
  fi
  echo "all $1 checks passed"
}

expect_status() {
  [[ $(cat "$work/$1/status") == "$2" ]] ||
    fail "$1: exit status $(cat "$work/$1/status"), not $2; it printed: $(tail -n 25 "$work/$1/log")"
}

fake_gpu_tools() {
  mkdir -p "$1"
  cat >"$1/nvcc" <<'EOF'
#!/bin/sh
echo "nvcc: NVIDIA (R) Cuda compiler driver"
echo "Cuda compilation tools, release 13.0, V13.0.88"
EOF
  cat >"$1/nvidia-smi" <<'EOF'
#!/bin/sh
[ -n "${FAKE_NO_GPU:-}" ] && { echo "No devices were found"; exit 6; }
case $1 in
  -L) echo "GPU 0: NVIDIA H200 (UUID: GPU-00000000-fake)" ;;
  --query-gpu=*) echo "NVIDIA H200, 570.00, 143771 MiB" ;;
  *) echo "fake nvidia-smi: unexpected arguments: $*" >&2; exit 2 ;;
esac
EOF
  chmod +x "$1/nvcc" "$1/nvidia-smi"
}

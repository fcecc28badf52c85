# shellcheck shell=bash
# Shared by the scripts in this folder; source it, don't run it.

# Repository root, whatever the caller's working directory.
DPT_ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"

# True when this machine can run CUDA code: nvcc to build it and a GPU to run it.
dpt_have_gpu() {
  command -v nvcc >/dev/null 2>&1 && command -v nvidia-smi >/dev/null 2>&1 && nvidia-smi -L 2>/dev/null | grep -q GPU
}

# Make nvcc findable where the toolkit is installed but not on PATH.
if ! command -v nvcc >/dev/null 2>&1 && [[ -x /usr/local/cuda/bin/nvcc ]]; then
  export PATH="/usr/local/cuda/bin:$PATH"
fi

dpt_banner() { printf '\n=== %s ===\n' "$*"; }

# dpt_gpu_environment [PREFIX]: what the GPU tests, benchmarks, sanitizers and profiles need from the environment:
# PREFIX's shared libraries (scripts/gpu-prefix) and the toolkit's (an executable unpacked from a pack names the
# folders of the machine that built it) on LD_LIBRARY_PATH, and the folder of the real matrices (test_spmv,
# test_app_support and bench_spmv otherwise look where the source tree was when they were built). Sets multiarch
# (the prefix's library folder when it has one; gcc prints none on an image that is not Debian's) and toolkit
# (/usr/local/cuda-13.0, not the link's path).
dpt_gpu_environment() {
  local prefix=${1:-} dir toolkit_libs=
  multiarch=
  for dir in ${prefix:+"$prefix"/lib/*-linux-gnu}; do
    [[ -d $dir ]] && { multiarch=${dir##*/}; break; }
  done
  [[ -n $multiarch ]] || multiarch=$(gcc -print-multiarch 2>/dev/null)
  [[ -n $multiarch ]] || multiarch=x86_64-linux-gnu
  toolkit=$(dirname "$(dirname "$(readlink -f "$(command -v nvcc)")")")
  for dir in "$toolkit/lib64" "$toolkit/lib"; do
    [[ -d $dir ]] && toolkit_libs+=${toolkit_libs:+:}$dir
  done
  local libraries=${prefix:+$prefix/lib/$multiarch:}${toolkit_libs:-$toolkit/lib64}
  export LD_LIBRARY_PATH="$libraries${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
  export DPT_MATRIX_DIR=$DPT_ROOT/data/matrices
}

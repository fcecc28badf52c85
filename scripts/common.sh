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

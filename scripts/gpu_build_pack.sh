# shellcheck shell=bash
# A CUDA build made on one machine and run on another: source it, don't run it. scripts/gpu-prefix builds the
# cuda preset here (no GPU needed) and packs it; scripts/gpu-check on a lent GPU unpacks it instead of spending
# minutes of the lease compiling, but only when the pack was built from exactly this tree's sources by an nvcc of
# the same CUDA release for the same architecture, and only when the machine's loader finds every library it
# links. Otherwise gpu-check builds from source as before. tests/scripts/gpu_build_pack_test.sh tests these functions.

# The files a build of dpt reads, relative to ROOT, one a line, sorted: every file of the folders that hold
# sources and CMake code, less Python's caches (git-ignored, so they need not travel).
dpt_build_inputs() {  # dpt_build_inputs ROOT
  (cd "$1" && find CMakeLists.txt CMakePresets.json cmake cpu_backend algorithms custom_kernels apps tests bench -type f \
    ! -path '*/__pycache__/*' ! -name '*.pyc' | LC_ALL=C sort)
}

# The CUDA release of the nvcc here ("13.0"), and its full version ("V13.0.88"). A pack built by another nvcc of
# the same release runs the same here: its kernels are sm_ code plus PTX, the CCCL headers are compiled in, and
# libcudart.so.13 takes any 13.x runtime (the loader check below finds a missing one).
dpt_cuda_release() {
  nvcc --version | sed -n 's/.*release \([0-9]*\.[0-9]*\).*/\1/p'
}
dpt_nvcc_version() {
  nvcc --version | sed -n 's/.*release [0-9.]*, \(V[0-9.]*\).*/\1/p'
}

# The SHA-256 of every build input under ROOT, as `sha256sum` writes them (paths relative to ROOT).
dpt_hash_inputs() {  # dpt_hash_inputs ROOT
  (cd "$1" && dpt_build_inputs . | tr '\n' '\0' | xargs -0 sha256sum)
}

# Succeeds when ROOT's build inputs are exactly those HASHES lists, with those contents; otherwise prints one line
# saying what differs and fails.
dpt_inputs_match() {  # dpt_inputs_match HASHES ROOT
  local hashes=$1 root=$2 changed
  if ! changed=$(cd "$root" && sha256sum --quiet --check "$hashes" 2>/dev/null); then
    echo "built from other sources: $(sed 's/: FAILED.*//' <<<"$changed" | head -n 3 | paste -s -d ' ')"
  elif [[ $(cd "$root" && dpt_build_inputs .) != $(sed 's/^[0-9a-f]*  //' "$hashes") ]]; then
    echo "built from other sources: this tree has build inputs the pack's did not"
  else
    return 0
  fi
  return 1
}

# Packs BUILD's executables and static libraries (the outputs that tests, benchmarks, apps and `cmake --install`
# use; CMake's own files are left out: configuring on the other machine makes them anew) into FILE, a gzipped
# tar, with a manifest: the CUDA release and nvcc version, the architecture, where and when it was built, and
# HASHES, the build inputs' SHA-256 taken before the build (dpt_hash_inputs), which ROOT must still match.
dpt_pack_build() {  # dpt_pack_build BUILD FILE ROOT ARCH HASHES
  local build=$1 file=$2 root=$3 arch=$4 hashes=$5 stage why
  if ! why=$(dpt_inputs_match "$hashes" "$root"); then
    echo "gpu pack: the sources changed during the build (${why#built from other sources: }); nothing packed" >&2
    return 1
  fi
  stage=$(mktemp -d) || return 1
  mkdir -p "$stage/dpt-pack" && cp "$hashes" "$stage/dpt-pack/sources.sha256" &&
    {
      echo "cuda: $(dpt_cuda_release)"
      echo "nvcc: $(dpt_nvcc_version)"
      echo "arch: $arch"
      echo "built: $(date -u '+%Y-%m-%d %H:%M UTC') on $(hostname)"
      echo "commit: $(git -C "$root" rev-parse --short HEAD 2>/dev/null || echo unknown)$(git -C "$root" diff --quiet HEAD 2>/dev/null || echo ' (with local changes)')"
    } >"$stage/dpt-pack/manifest" &&
    (cd "$build" && find . -name CMakeFiles -prune -o -type f \( -name '*.a' -o -perm -u+x \) -print |
      LC_ALL=C sort) >"$stage/dpt-pack/outputs" || {
    rm -rf "$stage"
    return 1
  }
  if [[ ! -s $stage/dpt-pack/outputs ]]; then
    echo "gpu pack: $build holds no executable or library" >&2
    rm -rf "$stage"
    return 1
  fi
  local status=0
  tar -czf "$file.tmp" -C "$stage" dpt-pack -C "$(cd "$build" && pwd)" -T "$stage/dpt-pack/outputs" && mv "$file.tmp" "$file" ||
    status=1
  rm -rf "$stage" "$file.tmp"
  return $status
}

# A line of FILE's manifest: dpt_pack_field FILE built → "2026-12-02 17:40 UTC on host".
dpt_pack_field() {  # dpt_pack_field FILE FIELD
  tar -xzOf "$1" dpt-pack/manifest 2>/dev/null | sed -n "s/^$2: //p"
}

# Succeeds when FILE may stand in for a build of ROOT for ARCH with this machine's CUDA release; otherwise prints
# one line saying why not and fails.
dpt_check_pack() {  # dpt_check_pack FILE ROOT ARCH
  local file=$1 root=$2 arch=$3 stage
  [[ -f $file ]] || { echo "no pack $file"; return 1; }
  stage=$(mktemp -d) || return 1
  if ! tar -xzf "$file" -C "$stage" dpt-pack/manifest dpt-pack/sources.sha256 2>/dev/null; then
    echo "$file is not a build pack (no dpt-pack/manifest)"
    rm -rf "$stage"
    return 1
  fi
  local cuda_then arch_then status=1
  cuda_then=$(sed -n 's/^cuda: //p' "$stage/dpt-pack/manifest")
  arch_then=$(sed -n 's/^arch: //p' "$stage/dpt-pack/manifest")
  if [[ $cuda_then != "$(dpt_cuda_release)" ]]; then
    echo "built with CUDA ${cuda_then:-?}, here $(dpt_cuda_release)"
  elif [[ $arch_then != "$arch" ]]; then
    echo "built for sm_$arch_then, not sm_$arch"
  elif dpt_inputs_match "$stage/dpt-pack/sources.sha256" "$root"; then
    status=0
  fi
  rm -rf "$stage"
  return $status
}

# Unpacks FILE's outputs into BUILD (configured already) and checks that the loader finds every shared library
# each executable needs; fails, printing the first that it does not, otherwise.
dpt_unpack_build() {  # dpt_unpack_build FILE BUILD
  local file=$1 build=$2 output missing
  tar -xzf "$file" -C "$build" --exclude=dpt-pack || return 1
  while read -r output; do
    [[ $output == *.a ]] && continue
    missing=$(ldd "$build/$output" 2>&1 | grep -E 'not found|No such file' | head -n 1)
    if [[ -n $missing ]]; then
      echo "gpu pack: $output cannot run here: ${missing//$'\t'/}" >&2
      return 1
    fi
  done < <(tar -xzOf "$file" dpt-pack/outputs)
}

# One-line helpers for everything dpt builds. Each takes the target name and its sources; `.cu` sources are
# CUDA under the CUDA device system and plain C++ (compiled by the host compiler) under OMP, TBB and CPP.
#
#   dpt_add_test(NAME SOURCES ... [LABELS cpu|simt|gpu ...] [LIBS ...] [ARGS ...])
#   dpt_add_app(NAME SOURCES ... [LIBS ...])
#   dpt_add_bench(NAME SOURCES ... [LIBS ...] [SMOKE_ARGS ...])
#   dpt_add_library(NAME SOURCES ... [LIBS ...])
#   dpt_assemble_own_kernels(NAME)

# Warnings for dpt's own targets only; consumers of dpt::algorithms never inherit them.
add_library(dpt_warnings INTERFACE)
target_compile_options(dpt_warnings INTERFACE
  $<$<COMPILE_LANGUAGE:CXX>:-Wall -Wextra>
  $<$<COMPILE_LANGUAGE:CUDA>:-Xcompiler=-Wall,-Wextra>)

# Makes the `.cu` files of TARGET compile as C++ with the host compiler when the device system is not CUDA,
# and gives CUDA targets the flags that device lambdas need.
function(dpt_compile_cu_sources target)
  get_target_property(sources ${target} SOURCES)
  foreach(source IN LISTS sources)
    if(source MATCHES "\\.cu$")
      if(DPT_CUDA)
        set_source_files_properties(${source} TARGET_DIRECTORY ${target} PROPERTIES LANGUAGE CUDA)
      else()
        set_source_files_properties(${source} TARGET_DIRECTORY ${target} PROPERTIES LANGUAGE CXX COMPILE_OPTIONS "-xc++")
      endif()
    endif()
  endforeach()
  if(DPT_CUDA)
    target_compile_options(${target} PRIVATE $<$<COMPILE_LANGUAGE:CUDA>:--extended-lambda --expt-relaxed-constexpr>)
  endif()
endfunction()

function(_dpt_add_executable name)
  cmake_parse_arguments(ARG "" "" "SOURCES;LIBS" ${ARGN})
  add_executable(${name} ${ARG_SOURCES})
  target_link_libraries(${name} PRIVATE dpt::algorithms dpt_warnings ${ARG_LIBS})
  dpt_compile_cu_sources(${name})
endfunction()

function(dpt_add_app name)
  cmake_parse_arguments(ARG "" "" "SOURCES;LIBS" ${ARGN})
  _dpt_add_executable(${name} SOURCES ${ARG_SOURCES} LIBS dpt_app_support ${ARG_LIBS})
  set_target_properties(${name} PROPERTIES RUNTIME_OUTPUT_DIRECTORY "${PROJECT_BINARY_DIR}/bin")
  install(TARGETS ${name} RUNTIME)
endfunction()

# A test executable per area, labelled for ctest: `cpu` (Thrust on a CPU device system), `simt` (kernels on the
# host SIMT runner), `host` (host-only code: the apps' readers, command lines, references) or `gpu` (needs a
# GPU). In a CUDA build every Thrust test runs on the GPU, so `cpu` becomes `gpu` there. Exit code 77 means
# "skipped" — a GPU test on a machine without a GPU says so instead of passing. simt and host tests need no GPU,
# even in a CUDA build, and are left out when DPT_BUILD_HOST_TESTS is off.
function(dpt_add_test name)
  cmake_parse_arguments(ARG "" "" "SOURCES;LIBS;LABELS;ARGS" ${ARGN})
  if(NOT ARG_LABELS)
    set(ARG_LABELS cpu)
  endif()
  if("simt" IN_LIST ARG_LABELS OR "host" IN_LIST ARG_LABELS)
    if(NOT DPT_BUILD_HOST_TESTS)
      return()
    endif()
    set(runner dpt_test_main_host)
  else()
    set(runner dpt_test_main)
  endif()
  _dpt_add_executable(${name} SOURCES ${ARG_SOURCES} LIBS ${runner} ${ARG_LIBS})
  if(DPT_CUDA)
    list(TRANSFORM ARG_LABELS REPLACE "^cpu$" "gpu")
  endif()
  # Under AddressSanitizer the [large] cases run about a hundred times slower than in the optimised builds, which
  # run them; the sanitizer build runs the rest (tests/test_support/random_inputs.hpp: sanitized_build).
  if(CMAKE_CXX_FLAGS MATCHES "-fsanitize=address")
    list(APPEND ARG_ARGS "~[large]")
  endif()
  add_test(NAME ${name} COMMAND ${name} ${ARG_ARGS})
  set_tests_properties(${name} PROPERTIES LABELS "${ARG_LABELS}" SKIP_RETURN_CODE 77)
endfunction()

# A benchmark executable. In a CPU build with tests it is also a ctest smoke test, NAME_smoke (labels `cpu` and
# `bench`): bench/smoke runs it with SMOKE_ARGS (small sizes) and fails if any benchmark's check before timing
# failed. A CUDA build has none: scripts/gpu-check runs the GPU benchmarks in full.
function(dpt_add_bench name)
  cmake_parse_arguments(ARG "" "" "SOURCES;LIBS;SMOKE_ARGS" ${ARGN})
  _dpt_add_executable(${name} SOURCES ${ARG_SOURCES} LIBS benchmark::benchmark ${ARG_LIBS})
  set_target_properties(${name} PROPERTIES RUNTIME_OUTPUT_DIRECTORY "${PROJECT_BINARY_DIR}/bench")
  if(DPT_BUILD_TESTS AND NOT DPT_CUDA)
    add_test(NAME ${name}_smoke COMMAND ${PROJECT_SOURCE_DIR}/bench/smoke $<TARGET_FILE:${name}> ${ARG_SMOKE_ARGS})
    set_tests_properties(${name}_smoke PROPERTIES LABELS "cpu;bench")
  endif()
endfunction()

# A static library of dpt code that several executables share (a tour chapter, a file reader).
function(dpt_add_library name)
  cmake_parse_arguments(ARG "" "" "SOURCES;LIBS" ${ARGN})
  add_library(${name} STATIC ${ARG_SOURCES})
  target_link_libraries(${name} PUBLIC dpt::algorithms ${ARG_LIBS} PRIVATE dpt_warnings)
  dpt_compile_cu_sources(${name})
endfunction()

# A PTX-only CUDA build (CMAKE_CUDA_ARCHITECTURES NN-virtual, the cuda-check preset) skips ptxas, about 40 % of
# a CUDA compile. The targets that instantiate dpt's hand-written kernels in every configuration dpt uses (their
# GPU tests, bench_scan's tiles, bench_spmv) are still assembled to machine code there, so that ptxas's checks on
# a kernel's static shared memory, registers under its launch bounds and stack run in every CUDA build.
function(dpt_assemble_own_kernels target)
  if(DPT_CUDA AND CMAKE_CUDA_ARCHITECTURES MATCHES "-virtual")
    string(REPLACE "-virtual" "-real" machine_code "${CMAKE_CUDA_ARCHITECTURES}")
    set_target_properties(${target} PROPERTIES CUDA_ARCHITECTURES "${machine_code}")
  endif()
endfunction()

# A test of dpt::mpi that runs TARGET under mpiexec on each of RANKS (NAME_1, NAME_2, …; label mpi besides
# LABELS). Open MPI's --oversubscribe lets 3 ranks share this 2-core machine; with more than one rank each runs one
# OpenMP thread, so that ranks do not fight for the cores. Root may run it (Open MPI refuses root unless told). Under
# AddressSanitizer leaks are looked for in dpt's code, not in Open MPI's.
function(dpt_add_mpi_test name)
  cmake_parse_arguments(ARG "" "TARGET" "RANKS;LABELS;ARGS" ${ARGN})
  execute_process(COMMAND ${MPIEXEC_EXECUTABLE} --version OUTPUT_VARIABLE version ERROR_QUIET)
  set(oversubscribe "")
  if(version MATCHES "Open MPI|OpenRTE")
    set(oversubscribe --oversubscribe)
  endif()
  if(CMAKE_CXX_FLAGS MATCHES "-fsanitize=address")
    list(APPEND ARG_ARGS "~[large]")  # as dpt_add_test
  endif()
  foreach(ranks IN LISTS ARG_RANKS)
    add_test(NAME ${name}_${ranks} COMMAND ${MPIEXEC_EXECUTABLE} ${MPIEXEC_NUMPROC_FLAG} ${ranks} ${oversubscribe}
             ${MPIEXEC_PREFLAGS} $<TARGET_FILE:${ARG_TARGET}> ${MPIEXEC_POSTFLAGS} ${ARG_ARGS})
    set(threads "")
    if(ranks GREATER 1)
      set(threads OMP_NUM_THREADS=1)
    endif()
    # one machine: Open MPI's shared-memory transport only, which halves its start (it probes no network)
    set(environment OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_btl=self,vader OMPI_MCA_pml=ob1
                    ${threads})
    if(CMAKE_CXX_FLAGS MATCHES "-fsanitize=address")
      # Open MPI keeps memory until exit: its libraries' allocations are suppressed (cmake/lsan-mpi.supp), which
      # needs whole stacks (they are built without frame pointers) and plugins that stay loaded.
      list(APPEND environment ASAN_OPTIONS=detect_leaks=1:fast_unwind_on_malloc=0
           LSAN_OPTIONS=suppressions=${PROJECT_SOURCE_DIR}/cmake/lsan-mpi.supp
           OMPI_MCA_mca_base_component_disable_dlclose=1)
    endif()
    set_tests_properties(${name}_${ranks} PROPERTIES LABELS "${ARG_LABELS};mpi" TIMEOUT 600
                         ENVIRONMENT "${environment}")
  endforeach()
endfunction()

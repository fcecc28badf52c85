# Selects Thrust's device system from DPT_DEVICE_SYSTEM and exposes it as the target `dpt_thrust`.
#
# CCCL is found through its own CMake package, which ships with the CUDA toolkit in lib64/cmake. The hint is
# derived from where the toolkit is (CUDAToolkit_LIBRARY_DIR), never from a hard-coded include path.

string(TOUPPER "${DPT_DEVICE_SYSTEM}" DPT_DEVICE_SYSTEM)
if(NOT DPT_DEVICE_SYSTEM MATCHES "^(CUDA|OMP|TBB|CPP)$")
  message(FATAL_ERROR "DPT_DEVICE_SYSTEM must be CUDA, OMP, TBB or CPP (got '${DPT_DEVICE_SYSTEM}')")
endif()

if(DPT_DEVICE_SYSTEM STREQUAL "CUDA")
  if(NOT DEFINED CMAKE_CUDA_ARCHITECTURES)
    set(CMAKE_CUDA_ARCHITECTURES 90)   # H100/H200; override with -DCMAKE_CUDA_ARCHITECTURES=...
  endif()
  enable_language(CUDA)
  set(CMAKE_CUDA_STANDARD 17)
  set(CMAKE_CUDA_STANDARD_REQUIRED ON)
endif()

find_package(CUDAToolkit REQUIRED)   # also for CPU builds: CCCL's headers and CMake package live in the toolkit
find_package(CCCL CONFIG REQUIRED HINTS "${CUDAToolkit_LIBRARY_DIR}/cmake" "${CUDAToolkit_LIBRARY_ROOT}/lib64/cmake")

thrust_create_target(dpt_thrust HOST CPP DEVICE ${DPT_DEVICE_SYSTEM})
message(STATUS "dpt: Thrust ${THRUST_VERSION}, device system ${DPT_DEVICE_SYSTEM}")

# True when .cu files are compiled by nvcc; otherwise the host compiler compiles them as C++.
if(DPT_DEVICE_SYSTEM STREQUAL "CUDA")
  set(DPT_CUDA ON)
else()
  set(DPT_CUDA OFF)
endif()

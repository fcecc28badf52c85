# `cmake --install` lays out headers, apps and a CMake package so that an outside project can write
#
#   find_package(dpt CONFIG REQUIRED)
#   target_link_libraries(app PRIVATE dpt::algorithms)        # the Thrust compositions (header-only)
#   target_link_libraries(app PRIVATE dpt::custom_kernels)    # the hand-written scans (on the SIMT runner
#                                                             # unless dpt was installed for CUDA)
#   target_link_libraries(app PRIVATE dpt::mpi)               # across MPI ranks (where dpt was built with an MPI;
#                                                             # dpt_WITH_MPI says whether it was)
#
# The package records the device system it was built for and recreates the matching Thrust target from the
# consumer's CUDA toolkit, so the consumer never repeats the backend choice.
include(CMakePackageConfigHelpers)
include(GNUInstallDirs)

set(DPT_INSTALL_CMAKEDIR "${CMAKE_INSTALL_LIBDIR}/cmake/dpt")
install(TARGETS dpt_cpu_backend dpt_algorithms dpt_custom_kernels dpt_simt EXPORT dpt-targets)
install(DIRECTORY cpu_backend/dpt algorithms/dpt custom_kernels/dpt DESTINATION "${CMAKE_INSTALL_INCLUDEDIR}"
  FILES_MATCHING PATTERN "*.hpp")
install(FILES custom_kernels/simt/simt.hpp DESTINATION "${CMAKE_INSTALL_INCLUDEDIR}/simt")
set(DPT_PACKAGE_WITH_MPI OFF)
if(TARGET dpt_mpi)  # distributed/, built where CMake found an MPI
  set(DPT_PACKAGE_WITH_MPI ON)
  install(TARGETS dpt_mpi EXPORT dpt-targets)
  install(DIRECTORY distributed/dpt DESTINATION "${CMAKE_INSTALL_INCLUDEDIR}" FILES_MATCHING PATTERN "*.hpp")
endif()
install(EXPORT dpt-targets NAMESPACE dpt:: DESTINATION "${DPT_INSTALL_CMAKEDIR}")

get_filename_component(DPT_BOOST_CMAKE_PARENT "${Boost_DIR}" DIRECTORY)  # …/cmake, above Boost-<version>/
configure_package_config_file(cmake/dpt-config.cmake.in "${PROJECT_BINARY_DIR}/dpt-config.cmake"
  INSTALL_DESTINATION "${DPT_INSTALL_CMAKEDIR}")
write_basic_package_version_file("${PROJECT_BINARY_DIR}/dpt-config-version.cmake" COMPATIBILITY SameMinorVersion)
install(FILES "${PROJECT_BINARY_DIR}/dpt-config.cmake" "${PROJECT_BINARY_DIR}/dpt-config-version.cmake"
  DESTINATION "${DPT_INSTALL_CMAKEDIR}")

# `cmake --install`: the static and shared libraries, the public headers, an exported
# target set with xposeConfig.cmake and its version file (find_package(xpose) gives
# xpose::xpose, the shared library, and xpose::xpose_static), and a pkg-config file.
include(CMakePackageConfigHelpers)

set(XPOSE_CMAKE_DIR ${CMAKE_INSTALL_LIBDIR}/cmake/xpose)
install(TARGETS xpose_shared xpose_static EXPORT xposeTargets
        LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR}
        ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR}
        RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
install(DIRECTORY include/xpose DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
install(EXPORT xposeTargets NAMESPACE xpose:: DESTINATION ${XPOSE_CMAKE_DIR})

configure_package_config_file(cmake/xposeConfig.cmake.in ${PROJECT_BINARY_DIR}/xposeConfig.cmake
                              INSTALL_DESTINATION ${XPOSE_CMAKE_DIR})
# 0.x: a minor version may change the API.
write_basic_package_version_file(${PROJECT_BINARY_DIR}/xposeConfigVersion.cmake COMPATIBILITY SameMinorVersion)
install(FILES ${PROJECT_BINARY_DIR}/xposeConfig.cmake ${PROJECT_BINARY_DIR}/xposeConfigVersion.cmake
        DESTINATION ${XPOSE_CMAKE_DIR})

# pkg-config: the prefix relative to the .pc file, so the installed tree can move.
set(XPOSE_PC_PREFIX "\${pcfiledir}")
string(REPLACE "/" ";" xpose_pc_depth "${CMAKE_INSTALL_LIBDIR}/pkgconfig")
foreach(unused IN LISTS xpose_pc_depth)
  string(APPEND XPOSE_PC_PREFIX "/..")
endforeach()
list(GET CUDAToolkit_INCLUDE_DIRS 0 XPOSE_PC_CUDA_INCLUDE)
configure_file(cmake/xpose.pc.in ${PROJECT_BINARY_DIR}/xpose.pc @ONLY)
install(FILES ${PROJECT_BINARY_DIR}/xpose.pc DESTINATION ${CMAKE_INSTALL_LIBDIR}/pkgconfig)

# libxpose_nccl where it was built: xpose::xpose_nccl (it needs NCCL where it was found).
if(TARGET xpose_nccl)
  install(TARGETS xpose_nccl EXPORT xposeTargets LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR})
endif()

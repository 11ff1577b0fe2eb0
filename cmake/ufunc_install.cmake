# cmake --install: headers under include/ufunc, the library, and a CMake package so
# that consumers write find_package(ufunc CONFIG) and link ufunc::ufunc.
include_guard(GLOBAL)
include(GNUInstallDirs)
include(CMakePackageConfigHelpers)

install(TARGETS ufunc EXPORT ufuncTargets
  LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR}
  ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR}
  RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR}
  INCLUDES DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
set(_ufunc_header_dirs core/include ufuncs/include fusion/include gufunc/include backends/cuda/rtc/include)
get_property(_ufunc_backends GLOBAL PROPERTY UFUNC_BACKENDS)
foreach(name IN LISTS _ufunc_backends)
  list(APPEND _ufunc_header_dirs backends/${name}/include)
endforeach()
# The distributed-array library (dist/), where it was built: ufunc::dist in the same package.
set(UFUNC_DIST_BUILT OFF)
if(TARGET ufunc_dist)
  set(UFUNC_DIST_BUILT ON)
  install(TARGETS ufunc_dist EXPORT ufuncTargets
    LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR}
    ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR}
    RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR}
    INCLUDES DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
  list(APPEND _ufunc_header_dirs dist/include)
endif()
foreach(dir IN LISTS _ufunc_header_dirs)
  install(DIRECTORY ${PROJECT_SOURCE_DIR}/${dir}/ufunc DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
endforeach()
install(EXPORT ufuncTargets NAMESPACE ufunc:: DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/ufunc)
configure_package_config_file(${PROJECT_SOURCE_DIR}/cmake/ufuncConfig.cmake.in
  ${PROJECT_BINARY_DIR}/ufuncConfig.cmake INSTALL_DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/ufunc)
write_basic_package_version_file(${PROJECT_BINARY_DIR}/ufuncConfigVersion.cmake COMPATIBILITY SameMinorVersion)
install(FILES ${PROJECT_BINARY_DIR}/ufuncConfig.cmake ${PROJECT_BINARY_DIR}/ufuncConfigVersion.cmake
  ${PROJECT_SOURCE_DIR}/cmake/ufunc_xsimd_fixup.cmake
  DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/ufunc)

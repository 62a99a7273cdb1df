# install rules, CMake package config and pkg-config file (owned by the build infra)
#
# Installs:
#   lib/            libheft, libheft_solver (shared or static per BUILD_SHARED_LIBS)
#   include/heft/   the public headers (HEFT_PUBLIC_HEADERS), nothing else
#   lib/cmake/heft/ heftConfig.cmake, heftConfigVersion.cmake, heftTargets*.cmake
#   lib/pkgconfig/  heft.pc
#
# A consumer does either
#   find_package(heft REQUIRED)  target_link_libraries(app PRIVATE heft::heft)
# or
#   cc app.c $(pkg-config --cflags --libs heft)
# and includes <heft/heft.h> (the engine) or <heft/mlcp.h> (the solvers on
# their own); the headers include each other with quotes, by name.

include(GNUInstallDirs)
include(CMakePackageConfigHelpers)

# Public headers, relative to the source root. Append to this list (before this
# file is included, or here) to install more; they all land flat in include/heft/.
list(APPEND HEFT_PUBLIC_HEADERS
  include/heft/base.h
  include/heft/heft.h
  include/heft/heft_math.h
  include/heft/mlcp.h
  include/heft/solver_options.h
)
list(REMOVE_DUPLICATES HEFT_PUBLIC_HEADERS)

set(HEFT_INSTALL_INCLUDEDIR "${CMAKE_INSTALL_INCLUDEDIR}/heft")
set(HEFT_INSTALL_CMAKEDIR "${CMAKE_INSTALL_LIBDIR}/cmake/heft")

# The same names as the installed package, for projects that pull Heft in with
# add_subdirectory or FetchContent.
if(NOT TARGET heft::heft)
  add_library(heft::heft ALIAS heft)
endif()
if(NOT TARGET heft::heft_solver)
  add_library(heft::heft_solver ALIAS heft_solver)
endif()

# An installed libheft finds libheft_solver next to itself, wherever the
# prefix is (an application's RUNPATH does not apply to indirect dependencies).
if(NOT APPLE)
  set_target_properties(heft heft_solver PROPERTIES INSTALL_RPATH "$ORIGIN")
  # Installed programs (demos/) find the libraries in ../lib* of their prefix.
  file(RELATIVE_PATH HEFT_BIN_TO_LIB
    "${CMAKE_INSTALL_FULL_BINDIR}" "${CMAKE_INSTALL_FULL_LIBDIR}")
  foreach(program heft-run heft-mlcp heft-viewer)
    if(TARGET ${program})
      set_target_properties(${program} PROPERTIES INSTALL_RPATH "$ORIGIN/${HEFT_BIN_TO_LIB}")
    endif()
  endforeach()
endif()

install(TARGETS heft heft_solver
  EXPORT heftTargets
  RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR}
  LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR}
  ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR}
  INCLUDES DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}
)

foreach(header IN LISTS HEFT_PUBLIC_HEADERS)
  if(NOT IS_ABSOLUTE "${header}")
    set(header "${PROJECT_SOURCE_DIR}/${header}")
  endif()
  install(FILES "${header}" DESTINATION ${HEFT_INSTALL_INCLUDEDIR})
endforeach()

install(EXPORT heftTargets
  NAMESPACE heft::
  FILE heftTargets.cmake
  DESTINATION ${HEFT_INSTALL_CMAKEDIR}
)

configure_package_config_file(
  ${PROJECT_SOURCE_DIR}/cmake/heftConfig.cmake.in
  ${PROJECT_BINARY_DIR}/heftConfig.cmake
  INSTALL_DESTINATION ${HEFT_INSTALL_CMAKEDIR}
)
write_basic_package_version_file(
  ${PROJECT_BINARY_DIR}/heftConfigVersion.cmake
  VERSION ${PROJECT_VERSION}
  # 0.x: a new minor version may break the API.
  COMPATIBILITY SameMinorVersion
)
install(FILES
  ${PROJECT_BINARY_DIR}/heftConfig.cmake
  ${PROJECT_BINARY_DIR}/heftConfigVersion.cmake
  DESTINATION ${HEFT_INSTALL_CMAKEDIR}
)

# pkg-config. The file locates the prefix relative to itself (${pcfiledir}),
# so it stays right when the prefix is chosen at install time
# (cmake --install build --prefix DIR) or the tree is moved.
set(HEFT_PC_INSTALLDIR "${CMAKE_INSTALL_LIBDIR}/pkgconfig")
if(IS_ABSOLUTE "${HEFT_PC_INSTALLDIR}")
  file(RELATIVE_PATH HEFT_PC_RELATIVE_PREFIX "${HEFT_PC_INSTALLDIR}" "${CMAKE_INSTALL_PREFIX}")
else()
  file(RELATIVE_PATH HEFT_PC_RELATIVE_PREFIX
    "${CMAKE_INSTALL_PREFIX}/${HEFT_PC_INSTALLDIR}" "${CMAKE_INSTALL_PREFIX}")
endif()
string(REGEX REPLACE "/$" "" HEFT_PC_RELATIVE_PREFIX "${HEFT_PC_RELATIVE_PREFIX}")
foreach(dir LIBDIR INCLUDEDIR)
  if(IS_ABSOLUTE "${CMAKE_INSTALL_${dir}}")
    set(HEFT_PC_${dir} "${CMAKE_INSTALL_${dir}}")
  else()
    set(HEFT_PC_${dir} "\${prefix}/${CMAKE_INSTALL_${dir}}")
  endif()
endforeach()
configure_file(${PROJECT_SOURCE_DIR}/cmake/heft.pc.in ${PROJECT_BINARY_DIR}/heft.pc @ONLY)
install(FILES ${PROJECT_BINARY_DIR}/heft.pc DESTINATION ${HEFT_PC_INSTALLDIR})

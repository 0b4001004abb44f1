# Installs the SDK component of the build tree BINARY_DIR into PREFIX, then
# configures and builds SOURCE_DIR/sdk/examples/echo_provider in BUILD
# against it, as a vendor would: a fresh CMake run given only
# -DCMAKE_PREFIX_PATH. Fails on any compiler warning, and when the SDK was
# found anywhere but under PREFIX.
#
#   cmake -D BINARY_DIR=... -D SOURCE_DIR=... -D PREFIX=... -D BUILD=... -P build_echo_example.cmake
foreach(var BINARY_DIR SOURCE_DIR PREFIX BUILD)
  if(NOT DEFINED ${var})
    message(FATAL_ERROR "build_echo_example.cmake: -D ${var}=... is required")
  endif()
endforeach()

function(run what)
  execute_process(COMMAND ${ARGN} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE out)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "${what} failed (${rc}):\n${out}")
  endif()
  set(run_output "${out}" PARENT_SCOPE)
endfunction()

file(REMOVE_RECURSE ${PREFIX} ${BUILD})
run("installing the sdk component"
    ${CMAKE_COMMAND} --install ${BINARY_DIR} --prefix ${PREFIX} --component sdk)

# Nothing from the caller's environment may point the example at the SDK.
set(clean_env ${CMAKE_COMMAND} -E env --unset=CMAKE_PREFIX_PATH --unset=ModelgwSDK_DIR
    --unset=ModelgwSDK_ROOT --unset=CPATH --unset=C_INCLUDE_PATH --unset=PKG_CONFIG_PATH
    --unset=MAKEFLAGS --unset=MFLAGS --unset=MAKELEVEL)
run("configuring the example"
    ${clean_env} ${CMAKE_COMMAND} -S ${SOURCE_DIR}/sdk/examples/echo_provider -B ${BUILD}
    -DCMAKE_PREFIX_PATH=${PREFIX})
set(configure_output "${run_output}")
run("building the example" ${clean_env} ${CMAKE_COMMAND} --build ${BUILD})
# Make runs without the parent build's MAKEFLAGS (clean_env), so every
# "warning: " left is the compiler's.
if(run_output MATCHES "[Ww]arning: ")
  file(REMOVE ${BUILD}/mgw_provider_echo.so)  # nothing half-accepted stays behind for a test to load
  message(FATAL_ERROR "the example must build without warnings:\n${run_output}")
endif()

file(STRINGS ${BUILD}/CMakeCache.txt sdk_dir_line REGEX "^ModelgwSDK_DIR:")
file(REAL_PATH ${PREFIX} real_prefix)
string(REGEX REPLACE "^ModelgwSDK_DIR:[A-Z]+=" "" sdk_dir "${sdk_dir_line}")
file(REAL_PATH "${sdk_dir}" sdk_dir)
string(FIND "${sdk_dir}" "${real_prefix}/" at)
if(NOT at EQUAL 0)
  message(FATAL_ERROR "the example found the SDK at '${sdk_dir}', not under ${real_prefix}")
endif()
if(NOT EXISTS ${BUILD}/mgw_provider_echo.so)
  file(GLOB built ${BUILD}/*.so)
  message(FATAL_ERROR "no ${BUILD}/mgw_provider_echo.so; built: ${built}")
endif()

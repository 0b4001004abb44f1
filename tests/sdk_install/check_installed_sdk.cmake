# The installed SDK as a vendor sees it (ctest sdk_install):
#   1. the sdk component installs exactly the headers, the CMake package and
#      the pkg-config file, and nothing of the gateway;
#   2. sdk/examples/echo_provider builds out of tree against it alone,
#      without a warning, into mgw_provider_echo.so exporting only the entry
#      symbol;
#   3. the CMake package: version = the ABI of plugin.h, SameMajorVersion
#      matching, modelgw::sdk, and modelgw_sdk_add_plugin (whose version
#      script hides a C++ plugin's template instances; a wrong KIND refused),
#      and a storage plugin's start from storage_plugin.hpp compiled with
#      -Werror;
#   4. the pkg-config file: its version, and a strict C99 program and the
#      example plugin built with its flags alone.
#
#   cmake -D BINARY_DIR=... -D SOURCE_DIR=... -D WORK_DIR=... -D NM=... -D PKG_CONFIG=...
#         -D C_COMPILER=... -P check_installed_sdk.cmake
foreach(var BINARY_DIR SOURCE_DIR WORK_DIR NM PKG_CONFIG C_COMPILER)
  if(NOT DEFINED ${var})
    message(FATAL_ERROR "check_installed_sdk.cmake: -D ${var}=... is required")
  endif()
endforeach()
set(PREFIX ${WORK_DIR}/prefix)
set(HERE ${CMAKE_CURRENT_LIST_DIR})

function(run what)
  execute_process(COMMAND ${ARGN} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "${what} failed (${rc}):\n${out}\n${err}")
  endif()
  string(STRIP "${out}" out)
  set(run_output "${out}" PARENT_SCOPE)
endfunction()

# The exported dynamic symbols of a shared object must be the entry alone.
function(expect_only_entry so)
  run("nm -D ${so}" ${NM} -D --defined-only ${so})
  string(REGEX REPLACE "[^\n]* ([^ \n]+)(\n|$)" "\\1;" symbols "${run_output}")
  if(NOT symbols STREQUAL "modelgw_plugin_entry;")
    message(FATAL_ERROR "${so} must export only modelgw_plugin_entry; nm -D says:\n${run_output}")
  endif()
endfunction()

# The ABI version, read here from the header itself, not from the SDK's build.
file(STRINGS ${SOURCE_DIR}/sdk/include/modelgw/plugin.h abi_lines REGEX "^#define MGW_ABI_(MAJOR|MINOR) ")
string(REGEX MATCH "MGW_ABI_MAJOR +([0-9]+)" _ "${abi_lines}")
set(major ${CMAKE_MATCH_1})
string(REGEX MATCH "MGW_ABI_MINOR +([0-9]+)" _ "${abi_lines}")
set(minor ${CMAKE_MATCH_1})
if(major STREQUAL "" OR minor STREQUAL "")
  message(FATAL_ERROR "no MGW_ABI_MAJOR/MINOR in plugin.h")
endif()
set(abi ${major}.${minor})
message(STATUS "plugin ABI ${abi}")

# --- 1 and 2: install, then the example out of tree --------------------------
file(REMOVE_RECURSE ${WORK_DIR})
run("building the example against the installed SDK"
    ${CMAKE_COMMAND} -D BINARY_DIR=${BINARY_DIR} -D SOURCE_DIR=${SOURCE_DIR} -D PREFIX=${PREFIX}
    -D BUILD=${WORK_DIR}/echo -P ${HERE}/build_echo_example.cmake)

file(GLOB_RECURSE installed RELATIVE ${PREFIX} ${PREFIX}/*)
file(GLOB_RECURSE headers RELATIVE ${SOURCE_DIR}/sdk/include ${SOURCE_DIR}/sdk/include/*)
set(expected
    share/cmake/ModelgwSDK/ModelgwSDKConfig.cmake
    share/cmake/ModelgwSDK/ModelgwSDKConfigVersion.cmake
    share/cmake/ModelgwSDK/ModelgwSDKTargets.cmake
    share/cmake/ModelgwSDK/ModelgwSDKPlugin.cmake
    share/cmake/ModelgwSDK/exports.map
    share/pkgconfig/modelgw-sdk.pc
    bin/modelgw-plugin-conformance)
foreach(h IN LISTS headers)
  list(APPEND expected include/${h})
endforeach()
foreach(must modelgw/plugin.h modelgw/sdk.hpp modelgw/provider_plugin.hpp modelgw/pii_plugin.hpp
        modelgw/storage_plugin.hpp modelgw/storage/guard.hpp modelgw/storage/args.hpp
        modelgw/testing/fake_host.hpp)
  list(FIND installed include/${must} at)
  if(at EQUAL -1)
    message(FATAL_ERROR "include/${must} was not installed")
  endif()
endforeach()
list(SORT installed)
list(SORT expected)
if(NOT installed STREQUAL expected)
  message(FATAL_ERROR "the sdk component installed\n  ${installed}\nexpected\n  ${expected}")
endif()

expect_only_entry(${WORK_DIR}/echo/mgw_provider_echo.so)
message(STATUS "example: ${WORK_DIR}/echo/mgw_provider_echo.so exports only modelgw_plugin_entry")

# --- 3: the CMake package ------------------------------------------------------
set(clean_env ${CMAKE_COMMAND} -E env --unset=CMAKE_PREFIX_PATH --unset=ModelgwSDK_DIR --unset=ModelgwSDK_ROOT)
function(configure_consumer name request kind)
  execute_process(COMMAND ${clean_env} ${CMAKE_COMMAND} -S ${HERE}/consumer -B ${WORK_DIR}/consumer-${name}
                          -DCMAKE_PREFIX_PATH=${PREFIX} -DREQUEST=${request} -DKIND=${kind}
                          -DEXPECT_VERSION=${abi}
                  RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  set(consumer_rc ${rc} PARENT_SCOPE)
  set(consumer_output "${out}\n${err}" PARENT_SCOPE)
endfunction()

configure_consumer(same "${abi}" pii)
if(NOT consumer_rc EQUAL 0)
  message(FATAL_ERROR "find_package(ModelgwSDK ${abi}) failed:\n${consumer_output}")
endif()
run("building the C++ consumer plugin and the storage helper's consumer"
    ${CMAKE_COMMAND} --build ${WORK_DIR}/consumer-same)
if(NOT EXISTS ${WORK_DIR}/consumer-same/mgw_pii_consumer.so)
  message(FATAL_ERROR "modelgw_sdk_add_plugin(KIND pii NAME consumer) made no mgw_pii_consumer.so")
endif()
expect_only_entry(${WORK_DIR}/consumer-same/mgw_pii_consumer.so)

configure_consumer(older "${major}.0" pii)
if(NOT consumer_rc EQUAL 0)
  message(FATAL_ERROR "find_package(ModelgwSDK ${major}.0) must accept ABI ${abi}:\n${consumer_output}")
endif()
math(EXPR next_minor "${minor} + 1")
math(EXPR next_major "${major} + 1")
foreach(refused "${major}.${next_minor}" "${next_major}.0")
  configure_consumer(refused-${refused} "${refused}" pii)
  if(consumer_rc EQUAL 0)
    message(FATAL_ERROR "find_package(ModelgwSDK ${refused}) must refuse ABI ${abi}")
  endif()
endforeach()
configure_consumer(bad-kind "${abi}" widget)
if(consumer_rc EQUAL 0 OR NOT consumer_output MATCHES "KIND must be provider")
  message(FATAL_ERROR "modelgw_sdk_add_plugin must refuse KIND widget:\n${consumer_output}")
endif()
message(STATUS "CMake package: version ${abi}, SameMajorVersion, modelgw::sdk, modelgw_sdk_add_plugin")

# --- 4: the pkg-config file ------------------------------------------------------
set(pc_env ${CMAKE_COMMAND} -E env PKG_CONFIG_PATH=${PREFIX}/share/pkgconfig)
run("pkg-config --modversion" ${pc_env} ${PKG_CONFIG} --modversion modelgw-sdk)
if(NOT run_output STREQUAL abi)
  message(FATAL_ERROR "modelgw-sdk.pc says version '${run_output}', the ABI is ${abi}")
endif()
run("pkg-config --cflags" ${pc_env} ${PKG_CONFIG} --cflags modelgw-sdk)
separate_arguments(cflags UNIX_COMMAND "${run_output}")
run("pkg-config exports_map" ${pc_env} ${PKG_CONFIG} --variable=exports_map modelgw-sdk)
if(NOT EXISTS "${run_output}")
  message(FATAL_ERROR "the exports_map variable names no file: '${run_output}'")
endif()
run("pkg-config plugin_cflags" ${pc_env} ${PKG_CONFIG} --variable=plugin_cflags modelgw-sdk)
separate_arguments(plugin_cflags UNIX_COMMAND "${run_output}")
run("pkg-config plugin_ldflags" ${pc_env} ${PKG_CONFIG} --variable=plugin_ldflags modelgw-sdk)
separate_arguments(plugin_ldflags UNIX_COMMAND "${run_output}")

set(strict -std=c99 -Wall -Wextra -Wpedantic -Werror)
run("compiling abi_version.c with the .pc's flags"
    ${C_COMPILER} ${strict} ${cflags} ${HERE}/abi_version.c -o ${WORK_DIR}/abi_version)
run("running abi_version" ${WORK_DIR}/abi_version)
if(NOT run_output STREQUAL "${abi} modelgw_plugin_entry")
  message(FATAL_ERROR "abi_version printed '${run_output}'")
endif()

file(GLOB example_sources ${SOURCE_DIR}/sdk/examples/echo_provider/*.c)
file(MAKE_DIRECTORY ${WORK_DIR}/pc)
run("building the example with the .pc's flags"
    ${C_COMPILER} ${strict} -fPIC ${cflags} ${plugin_cflags} ${example_sources} ${plugin_ldflags}
    -o ${WORK_DIR}/pc/mgw_provider_echo.so)
expect_only_entry(${WORK_DIR}/pc/mgw_provider_echo.so)
message(STATUS "pkg-config: version ${abi}, cflags, exports_map, plugin flags")

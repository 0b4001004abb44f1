# modelgw_add_gtest_suites(TARGET [TIMEOUT seconds]): registers one CTest test
# per GoogleTest suite of TARGET (not one per test, as gtest_discover_tests
# does). The integration suites start a whole stack (gateway, fake upstreams,
# identity provider) in SetUpTestSuite; one process per suite starts it once
# instead of once per test, which is most of the suite's time under ASan.
# The list is read after each build, like gtest_discover_tests does.
set(_MODELGW_GTEST_SUITES_SCRIPT ${CMAKE_CURRENT_LIST_DIR}/write_gtest_suites.cmake)

function(modelgw_add_gtest_suites target)
  cmake_parse_arguments(ARG "" "TIMEOUT" "" ${ARGN})
  if(NOT ARG_TIMEOUT)
    set(ARG_TIMEOUT 900)
  endif()
  set(ctest_file ${CMAKE_CURRENT_BINARY_DIR}/${target}_suites.cmake)
  add_custom_command(TARGET ${target} POST_BUILD
    COMMAND ${CMAKE_COMMAND} -D BIN=$<TARGET_FILE:${target}> -D OUT=${ctest_file}
            -D TIMEOUT=${ARG_TIMEOUT} -P ${_MODELGW_GTEST_SUITES_SCRIPT}
    BYPRODUCTS ${ctest_file}
    VERBATIM)
  set_property(DIRECTORY APPEND PROPERTY TEST_INCLUDE_FILES ${ctest_file})
endfunction()

# modelgw_add_gtest_suites(TARGET [TIMEOUT seconds] [PREFIX prefix]
#                          [LABELS label...] [PROPERTIES name value...]):
# registers one CTest test per GoogleTest suite of TARGET (not one per test,
# as gtest_discover_tests does), named PREFIX<suite>, each with the given
# labels and test properties.
#
# Why per suite: the integration suites start a whole stack (gateway, fake
# upstreams, identity provider) in SetUpTestSuite, once per suite instead of
# once per test; and every process of a test binary pays for loading all of
# modelgw_core, which under ASan was most of the unit tests' time (about 1,800
# processes of 0.1 s each). A failing test is still named in the output
# (`ctest --output-on-failure`), and `--gtest_filter` runs one alone.
# The list is read after each build, like gtest_discover_tests does.
set(_MODELGW_GTEST_SUITES_SCRIPT ${CMAKE_CURRENT_LIST_DIR}/write_gtest_suites.cmake)

function(modelgw_add_gtest_suites target)
  cmake_parse_arguments(ARG "" "TIMEOUT;PREFIX" "LABELS;PROPERTIES" ${ARGN})
  if(NOT ARG_TIMEOUT)
    set(ARG_TIMEOUT 900)
  endif()
  # The properties go to the script through a file: a list with values that
  # hold spaces or semicolons would not survive a command line.
  set(properties "TIMEOUT ${ARG_TIMEOUT}")
  if(ARG_LABELS)
    string(APPEND properties " LABELS [==[${ARG_LABELS}]==]")
  endif()
  set(name_expected TRUE)
  foreach(item IN LISTS ARG_PROPERTIES)
    if(name_expected)
      string(APPEND properties " ${item}")
      set(name_expected FALSE)
    else()
      string(APPEND properties " [==[${item}]==]")
      set(name_expected TRUE)
    endif()
  endforeach()
  set(properties_file ${CMAKE_CURRENT_BINARY_DIR}/${target}_suite_properties.txt)
  file(WRITE ${properties_file} "${properties}")
  set(ctest_file ${CMAKE_CURRENT_BINARY_DIR}/${target}_suites.cmake)
  add_custom_command(TARGET ${target} POST_BUILD
    COMMAND ${CMAKE_COMMAND} -D BIN=$<TARGET_FILE:${target}> -D OUT=${ctest_file}
            -D PREFIX=${ARG_PREFIX} -D PROPERTIES_FILE=${properties_file} -P ${_MODELGW_GTEST_SUITES_SCRIPT}
    BYPRODUCTS ${ctest_file}
    VERBATIM)
  # A target not built yet (scripts/test builds only the `binary` tests in
  # the release tree) has no list: one failing test says so, as with
  # gtest_discover_tests; it carries no label, so `ctest -L binary` skips it.
  set(include_file ${CMAKE_CURRENT_BINARY_DIR}/${target}_include.cmake)
  file(WRITE ${include_file}
    "if(EXISTS [==[${ctest_file}]==])\n"
    "  include([==[${ctest_file}]==])\n"
    "else()\n"
    "  add_test([==[${target}_NOT_BUILT]==] [==[${target}_NOT_BUILT]==])\n"
    "endif()\n")
  set_property(DIRECTORY APPEND PROPERTY TEST_INCLUDE_FILES ${include_file})
endfunction()

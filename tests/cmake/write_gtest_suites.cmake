# Run with -P by modelgw_add_gtest_suites: lists BIN's suites and writes OUT,
# a CTest file with one test per suite (`--gtest_filter=Suite.*`) named
# PREFIX<suite>, with the properties in PROPERTIES_FILE.
execute_process(COMMAND ${BIN} --gtest_list_tests
  OUTPUT_VARIABLE listing RESULT_VARIABLE rc TIMEOUT 60)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "${BIN} --gtest_list_tests failed (${rc}): ${listing}")
endif()
file(READ ${PROPERTIES_FILE} properties)
string(REPLACE "\n" ";" lines "${listing}")
set(content "")
foreach(line IN LISTS lines)
  # Suite lines start in column one and end with a dot (parameterised suites
  # add "  # TypeParam = ..." after it); test lines are indented.
  if(line MATCHES "^([A-Za-z0-9_/]+)\\.( .*)?$")
    set(suite ${CMAKE_MATCH_1})
    string(APPEND content
      "add_test([==[${PREFIX}${suite}]==] [==[${BIN}]==] [==[--gtest_filter=${suite}.*]==])\n"
      "set_tests_properties([==[${PREFIX}${suite}]==] PROPERTIES ${properties})\n")
  endif()
endforeach()
if(content STREQUAL "")
  message(FATAL_ERROR "${BIN} lists no test suites")
endif()
file(WRITE ${OUT} "${content}")

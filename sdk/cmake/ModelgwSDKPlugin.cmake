# modelgw_sdk_add_plugin(<target> KIND provider|pii|storage NAME <name>
#                        SOURCES <file>... [OUTPUT_DIRECTORY <dir>])
#
# Builds a plugin the gateway can load: a MODULE library named
# mgw_<kind>_<name>.so (no "lib" prefix: the gateway resolves `plugin: <name>`
# to that file in plugins.dir), linked against modelgw::sdk, with hidden
# visibility for C and C++, --no-undefined (a missing symbol fails the link,
# not the gateway's start-up) and exports.map, which leaves only
# modelgw_plugin_entry visible. Hidden visibility alone still exports the weak
# template instances of libstdc++ a C++ plugin uses, which another plugin's
# copies could then interpose.
#
# Used by the installed package (ModelgwSDKConfig.cmake) and usable in the
# source tree, where modelgw::sdk is an alias of modelgw_sdk.
include_guard(GLOBAL)

if(CMAKE_VERSION VERSION_LESS 3.17)
  message(FATAL_ERROR "modelgw_sdk_add_plugin needs CMake 3.17 or newer")
endif()

# The version script next to this file, for targets made without the helper.
set(MODELGW_SDK_EXPORTS_MAP "${CMAKE_CURRENT_LIST_DIR}/exports.map")

function(modelgw_sdk_add_plugin target)
  cmake_parse_arguments(PARSE_ARGV 1 ARG "" "KIND;NAME;OUTPUT_DIRECTORY" "SOURCES")
  if(ARG_UNPARSED_ARGUMENTS)
    message(FATAL_ERROR "modelgw_sdk_add_plugin(${target}): unknown arguments: ${ARG_UNPARSED_ARGUMENTS}")
  endif()
  if(NOT ARG_KIND MATCHES "^(provider|pii|storage)$")
    message(FATAL_ERROR "modelgw_sdk_add_plugin(${target}): KIND must be provider, pii or storage, "
                        "not '${ARG_KIND}'")
  endif()
  if(NOT ARG_NAME MATCHES "^[A-Za-z0-9][A-Za-z0-9_-]*$")
    message(FATAL_ERROR "modelgw_sdk_add_plugin(${target}): NAME must be letters, digits, '_' or '-' "
                        "(it becomes the file name), not '${ARG_NAME}'")
  endif()
  if(NOT ARG_SOURCES)
    message(FATAL_ERROR "modelgw_sdk_add_plugin(${target}): SOURCES is empty")
  endif()
  if(NOT TARGET modelgw::sdk)
    message(FATAL_ERROR "modelgw_sdk_add_plugin(${target}): no target modelgw::sdk here; "
                        "call find_package(ModelgwSDK) in this directory or a parent")
  endif()

  set(map "${CMAKE_CURRENT_FUNCTION_LIST_DIR}/exports.map")
  add_library(${target} MODULE ${ARG_SOURCES})
  set_target_properties(${target} PROPERTIES
    PREFIX ""
    OUTPUT_NAME "mgw_${ARG_KIND}_${ARG_NAME}"
    C_VISIBILITY_PRESET hidden
    CXX_VISIBILITY_PRESET hidden
    VISIBILITY_INLINES_HIDDEN ON)
  if(ARG_OUTPUT_DIRECTORY)
    set_target_properties(${target} PROPERTIES LIBRARY_OUTPUT_DIRECTORY "${ARG_OUTPUT_DIRECTORY}")
  endif()
  target_link_libraries(${target} PRIVATE modelgw::sdk)
  target_link_options(${target} PRIVATE "LINKER:--no-undefined" "LINKER:--version-script=${map}")
  set_property(TARGET ${target} APPEND PROPERTY LINK_DEPENDS "${map}")
endfunction()

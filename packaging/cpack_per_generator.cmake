# Read by cpack once per generator (CPACK_PROJECT_CONFIG_FILE): each package
# format takes the components meant for it (the unit's folder differs; the
# Debian changelog and lintian overrides are Debian's alone).
if(CPACK_GENERATOR STREQUAL "DEB")
  set(CPACK_COMPONENTS_ALL runtime runtime_deb sdk sdk_extras sdk_deb)
elseif(CPACK_GENERATOR STREQUAL "RPM")
  set(CPACK_COMPONENTS_ALL runtime runtime_rpm sdk sdk_extras)
endif()

# The stand-in's Slicer_EXTENSION_CPACK: the checks Slicer's extension packaging makes, the extension's description
# file, and a TGZ package of what the extension installs (`cpack` in the inner build).
foreach(_variable EXTENSION_NAME Slicer_REVISION Slicer_OS Slicer_ARCHITECTURE EXTENSION_HOMEPAGE EXTENSION_CATEGORY
                  EXTENSION_CONTRIBUTORS EXTENSION_DESCRIPTION EXTENSION_ICONURL EXTENSION_SCREENSHOTURLS
                  EXTENSION_DEPENDS)
  if("${${_variable}}" STREQUAL "")
    message(FATAL_ERROR "Slicer stand-in: ${_variable} is not defined or empty")
  endif()
endforeach()
foreach(_variable EXTENSION_README_FILE EXTENSION_LICENSE_FILE)
  if(NOT EXISTS "${${_variable}}")
    message(FATAL_ERROR "Slicer stand-in: ${_variable} names no file: '${${_variable}}'")
  endif()
endforeach()
# A superbuild extension packages the projects listed in CPACK_INSTALL_CMAKE_PROJECTS; Slicer refuses an empty list.
if(DEFINED ${EXTENSION_NAME}_SUPERBUILD AND "${CPACK_INSTALL_CMAKE_PROJECTS}" STREQUAL "")
  message(FATAL_ERROR "Slicer stand-in: ${EXTENSION_NAME} is a superbuild extension; set CPACK_INSTALL_CMAKE_PROJECTS")
endif()

set(_description "${CMAKE_BINARY_DIR}/${EXTENSION_NAME}.s4ext")
file(WRITE "${_description}" "")
foreach(_key HOMEPAGE CATEGORY CONTRIBUTORS DESCRIPTION ICONURL SCREENSHOTURLS DEPENDS BUILD_SUBDIRECTORY ENABLED)
  string(TOLOWER "${_key}" _name)
  file(APPEND "${_description}" "${_name} ${EXTENSION_${_key}}\n")
endforeach()
install(FILES "${_description}" DESTINATION "${Slicer_INSTALL_ROOT}${Slicer_SHARE_DIR}" COMPONENT RuntimeLibraries)

set(CPACK_GENERATOR TGZ)
set(CPACK_MONOLITHIC_INSTALL ON)
set(CPACK_PACKAGE_FILE_NAME "${Slicer_REVISION}-${Slicer_OS}-${Slicer_ARCHITECTURE}-${EXTENSION_NAME}")
set(CPACK_PACKAGE_DESCRIPTION_FILE "${EXTENSION_README_FILE}")
set(CPACK_RESOURCE_FILE_LICENSE "${EXTENSION_LICENSE_FILE}")
include(CPack)

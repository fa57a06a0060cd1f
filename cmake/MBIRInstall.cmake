# Installs the module built by cmake/MBIRFallbackModule.cmake the way ITK's module machinery installs an external
# module (ITKModuleExternal.cmake, itk_module_impl), so that users find it the same way:
#   <prefix>/include/ITK-x.y/                     the headers (itk*.h, mbir/, MBIRExport.h, mbir/Config.h)
#   <prefix>/lib[/<multiarch>]/                    libMBIR and libMBIREngine (CMAKE_INSTALL_LIBDIR)
#   <prefix>/lib/cmake/ITK-x.y/Modules/MBIR.cmake   the module file: find_package(ITK COMPONENTS MBIR) reads it when
#                                                   <prefix> is ITK's own prefix
#   <prefix>/lib/cmake/ITK-x.y/Modules/MBIRTargets.cmake   the exported targets MBIR and MBIREngine
#   <prefix>/lib/cmake/MBIR/MBIRConfig.cmake        find_package(MBIR) for any other prefix; it loads the module file,
#                                                   after which find_package(ITK COMPONENTS MBIR ...) works too
# The module file finds its files relative to itself, so the install can be moved.

include(GNUInstallDirs)
include(CMakePackageConfigHelpers)

install(
  TARGETS MBIR MBIREngine
  EXPORT MBIRTargets
  RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR} COMPONENT RuntimeLibraries
  LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR} COMPONENT RuntimeLibraries
  ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR} COMPONENT Development)
install(
  DIRECTORY ${PROJECT_SOURCE_DIR}/include/
  DESTINATION ${MBIR_INSTALL_INCLUDE_DIR}
  COMPONENT Development
  PATTERN "*.in" EXCLUDE)
install(FILES ${PROJECT_BINARY_DIR}/include/MBIRExport.h DESTINATION ${MBIR_INSTALL_INCLUDE_DIR}
        COMPONENT Development)
install(FILES ${PROJECT_BINARY_DIR}/include/mbir/Config.h DESTINATION ${MBIR_INSTALL_INCLUDE_DIR}/mbir
        COMPONENT Development)
install(
  EXPORT MBIRTargets
  DESTINATION ${MBIR_INSTALL_PACKAGE_DIR}/Modules
  COMPONENT Development)

set(MBIR_MODULE_FILE_DEPENDS "${MBIR_ITK_DEPENDS}")
set(MBIR_INSTALL_LIBRARY_DIR "${CMAKE_INSTALL_LIBDIR}")
configure_file(${PROJECT_SOURCE_DIR}/cmake/MBIRModuleInfo.cmake.in ${PROJECT_BINARY_DIR}/CMakeFiles/MBIR.cmake @ONLY)
configure_file(${PROJECT_SOURCE_DIR}/cmake/MBIRConfig.cmake.in ${PROJECT_BINARY_DIR}/CMakeFiles/MBIRConfig.cmake
               @ONLY)
write_basic_package_version_file(${PROJECT_BINARY_DIR}/CMakeFiles/MBIRConfigVersion.cmake
                                 COMPATIBILITY SameMinorVersion)
install(FILES ${PROJECT_BINARY_DIR}/CMakeFiles/MBIR.cmake DESTINATION ${MBIR_INSTALL_PACKAGE_DIR}/Modules
        COMPONENT Development)
install(FILES ${PROJECT_BINARY_DIR}/CMakeFiles/MBIRConfig.cmake ${PROJECT_BINARY_DIR}/CMakeFiles/MBIRConfigVersion.cmake
        DESTINATION lib/cmake/MBIR COMPONENT Development)

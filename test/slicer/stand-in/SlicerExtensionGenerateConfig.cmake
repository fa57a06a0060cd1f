# The stand-in's Slicer_EXTENSION_GENERATE_CONFIG: <Extension>Config.cmake in the build tree, by which other
# extensions find this one.
file(WRITE "${CMAKE_BINARY_DIR}/${EXTENSION_NAME}Config.cmake"
     "set(${EXTENSION_NAME}_SOURCE_DIR \"${EXTENSION_SOURCE_DIR}\")\n"
     "set(${EXTENSION_NAME}_CLIMODULES_BIN_DIR \"${CMAKE_BINARY_DIR}/${Slicer_CLIMODULES_BIN_DIR}\")\n")

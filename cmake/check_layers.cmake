# Fails when a source file of layer DIR includes a header of a folder that
# DIR may not use. Called at build time by tc_layer() in CMakeLists.txt:
#   cmake -DSRC=<src root> -DDIR=<folder> -DALLOWED="<folders>" -DSTAMP=<file> -P check_layers.cmake
string(REPLACE "," ";" ALLOWED "${ALLOWED}")
file(GLOB files ${SRC}/${DIR}/*.c ${SRC}/${DIR}/*.h)
set(bad "")
foreach(f ${files})
  file(STRINGS ${f} lines REGEX "^[ \t]*#[ \t]*include[ \t]*\"[a-z_]+/")
  foreach(line ${lines})
    string(REGEX REPLACE "^[ \t]*#[ \t]*include[ \t]*\"([a-z_]+)/.*" "\\1" folder "${line}")
    if(NOT folder STREQUAL DIR)
      list(FIND ALLOWED ${folder} i)
      if(i LESS 0)
        file(RELATIVE_PATH rel ${SRC}/.. ${f})
        string(APPEND bad "  ${rel}: ${line}\n")
      endif()
    endif()
  endforeach()
endforeach()
if(bad)
  message(FATAL_ERROR "layer ${DIR}/ may use only: ${ALLOWED}\n"
          "these includes go up or across the layers (see the graph at the top of CMakeLists.txt):\n${bad}")
endif()
file(WRITE ${STAMP} "ok\n")

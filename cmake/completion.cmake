# Writes the bash completion that the binary makes:
#   cmake -DBIN=<truecost> -DOUT=<file> -P completion.cmake
execute_process(COMMAND ${BIN} help --completion OUTPUT_FILE ${OUT}.new RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "${BIN} help --completion failed (${rc})")
endif()
file(RENAME ${OUT}.new ${OUT})

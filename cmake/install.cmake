# `make install` (cmake --install BUILD --prefix PREFIX, DESTDIR honoured):
#   bin/truecost                                 the binary
#   share/man/man1/truecost.1                    the man page, made from docs/
#   share/bash-completion/completions/truecost   the bash completion
# Included at the end of the top CMakeLists.txt.
include(GNUInstallDirs)

install(TARGETS truecost RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
# The completion is the binary's own (`truecost help --completion`: its
# command list and help texts), so it cannot drift from them.
set(TC_COMPLETION ${CMAKE_BINARY_DIR}/truecost.bash)
add_custom_command(OUTPUT ${TC_COMPLETION}
  COMMAND ${CMAKE_COMMAND} -DBIN=$<TARGET_FILE:truecost> -DOUT=${TC_COMPLETION}
          -P ${CMAKE_SOURCE_DIR}/cmake/completion.cmake
  DEPENDS truecost ${CMAKE_SOURCE_DIR}/cmake/completion.cmake
  COMMENT "Generating the bash completion from truecost help --completion")
add_custom_target(completion ALL DEPENDS ${TC_COMPLETION})
install(FILES ${TC_COMPLETION} DESTINATION ${CMAKE_INSTALL_DATADIR}/bash-completion/completions
        RENAME truecost)

# The man page is generated from the Markdown reference by scripts/man.mjs,
# one section per command of `truecost help --list`
# (node, which scripts/deps.sh installs for the integration tests anyway),
# as part of the default build, so that `cmake --install` finds it and a
# docs edit that the generator cannot read fails the build, not the install.
# Its date is the build's, or SOURCE_DATE_EPOCH's for a reproducible page.
find_program(TC_NODE node)
file(GLOB TC_MAN_SOURCES CONFIGURE_DEPENDS ${CMAKE_SOURCE_DIR}/docs/*.md
     ${CMAKE_SOURCE_DIR}/docs/commands/*.md ${CMAKE_SOURCE_DIR}/docs/help/*.txt)
set(TC_MAN_PAGE ${CMAKE_BINARY_DIR}/truecost.1)
set(TC_MAN_VERSION ${PROJECT_VERSION})
if(TC_GIT_DESCRIBE)
  set(TC_MAN_VERSION "${PROJECT_VERSION} (${TC_GIT_DESCRIBE})")
endif()
if(TC_NODE)
  string(TIMESTAMP TC_MAN_DATE "%Y-%m-%d" UTC)
  add_custom_command(OUTPUT ${TC_MAN_PAGE}
    COMMAND ${TC_NODE} ${CMAKE_SOURCE_DIR}/scripts/man.mjs --root ${CMAKE_SOURCE_DIR}
            --bin $<TARGET_FILE:truecost>
            --version "${TC_MAN_VERSION}" --date ${TC_MAN_DATE} -o ${TC_MAN_PAGE}
    DEPENDS truecost ${CMAKE_SOURCE_DIR}/scripts/man.mjs ${CMAKE_SOURCE_DIR}/README.md
            ${TC_MAN_SOURCES}
    COMMENT "Generating the man page truecost.1 from README.md and docs/"
    VERBATIM)
  add_custom_target(man ALL DEPENDS ${TC_MAN_PAGE})
  install(FILES ${TC_MAN_PAGE} DESTINATION ${CMAKE_INSTALL_MANDIR}/man1)
else()
  message(WARNING "node not found: the man page truecost.1 is not built or installed "
                  "(run scripts/deps.sh)")
endif()

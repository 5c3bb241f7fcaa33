# The version, from one place: project(VERSION) in the top CMakeLists.txt, plus what
# `git describe` says when the source is a git checkout (commits since the last tag, the commit,
# uncommitted changes), so a binary built between releases says which tree it came from.
# Sets SA_VERSION (for --version) and SA_DEB_VERSION (Debian's version syntax).
set(SA_VERSION "${PROJECT_VERSION}")
find_package(Git QUIET)
if(GIT_FOUND AND EXISTS "${PROJECT_SOURCE_DIR}/.git")
  execute_process(COMMAND "${GIT_EXECUTABLE}" describe --tags --long --always --dirty
    WORKING_DIRECTORY "${PROJECT_SOURCE_DIR}" OUTPUT_VARIABLE _describe
    OUTPUT_STRIP_TRAILING_WHITESPACE ERROR_QUIET RESULT_VARIABLE _describe_status)
  if(_describe_status EQUAL 0 AND _describe)
    # "v0.1.0-3-gabc1234[-dirty]" after a tag; "abc1234[-dirty]" in a history without tags.
    if(_describe MATCHES "^v?[0-9][^-]*-([0-9]+)-g([0-9a-f]+)(-dirty)?$")
      if(NOT CMAKE_MATCH_1 EQUAL 0 OR CMAKE_MATCH_3)
        set(SA_VERSION "${SA_VERSION}+${CMAKE_MATCH_1}.g${CMAKE_MATCH_2}")
      endif()
      set(_dirty "${CMAKE_MATCH_3}")
    elseif(_describe MATCHES "^([0-9a-f]+)(-dirty)?$")
      set(SA_VERSION "${SA_VERSION}+g${CMAKE_MATCH_1}")
      set(_dirty "${CMAKE_MATCH_2}")
    endif()
    if(_dirty)
      set(SA_VERSION "${SA_VERSION}.dirty")
    endif()
  endif()
endif()
# Debian versions allow [A-Za-z0-9.+~-]; ours already keep to that, '+' sorting after the release.
set(SA_DEB_VERSION "${SA_VERSION}")

# weft_add_cuda_executable(name a.cu [b.cu ...] [x.cuh ...] [c.cpp ...] [NO_STACKLESS]): an
# executable from unmodified CUDA sources.
#
# At build time weft-port rewrites each .cu into a .cpp in the build tree
# (kernel launches, extern __shared__ arrays and tests of __CUDA_ARCH__;
# everything else is kept, and a #line directive points compiler errors at
# the .cu's own lines). The ports are compiled as C++20 with __CUDACC__
# defined and linked with weft::weft. Other sources (.cpp, .c) are compiled
# as they are, without __CUDACC__, as nvcc's host compiler compiles them.
#
# weft-port follows each .cu's `#include "..."` lines (files found beside the
# file that includes them) and ports the headers, and .cu files, that need
# it into the same tree, at their place relative to the source directory, so
# that the ports' #include lines read them: nvcc users list only their .cu
# files, and so can weft's. It also writes a depfile naming every file it
# read, so that editing an included header ports the .cu again. A .cuh given
# in the list is ported on its own too (as before headers were followed).
#
# An executable of two or more .cu files compiles its ports with a
# precompiled <weft.hpp> (one per executable, built with its flags, so that
# no flag can disagree with it): a port begins with `#include <weft.hpp>`, so
# having the header parsed ahead of it changes nothing but the time. One .cu
# compiles without: precompiling costs more than the one compile it would
# shorten (docs/performance.md, "Compile time"). CMake marks the precompiled
# header a system header, so the compiler does not warn about weft's own
# code in a port. Each takes about 280 MB of the build tree with GCC 12;
# WEFT_PRECOMPILE_HEADERS=OFF turns them off.
#
# weft-port converts each .cu's kernels whose barriers and warp collectives
# all sit in their own bodies to stackless kernels (docs/porting.md,
# "Stackless kernels"); it is told the program's other sources, so that a
# kernel another of them names keeps its `void`. NO_STACKLESS among the
# arguments, or WEFT_PORT_STACKLESS=OFF for every program, keeps all kernels
# on fibers (WEFT_EXECUTOR=fibers does the same at run time).
#
# Beside the program, it writes <program>-gdb.py, which makes gdb load weft's
# gdb extension with the program (weft_gdb_autoload, below;
# WEFT_GDB_AUTOLOAD=OFF turns it off).
#
# Available after add_subdirectory(<weft>) or find_package(weft), which both
# define the weft::port and weft::weft targets it uses.
include_guard(GLOBAL)

option(WEFT_PRECOMPILE_HEADERS "Compile weft_add_cuda_executable's ports with a precompiled <weft.hpp>" ON)
option(WEFT_PORT_STACKLESS "weft_add_cuda_executable converts eligible kernels to stackless kernels" ON)
option(WEFT_GDB_AUTOLOAD "weft_add_cuda_executable writes <program>-gdb.py, which gdb auto-loads, beside each program" ON)

# weft's gdb extension (docs/debugging.md, "gdb"), for weft_gdb_autoload.
# An installed weft's weftConfig.cmake sets WEFT_GDB_EXTENSION to the
# installed copy before including this file; in weft's source tree it lies
# beside cmake/. Kept as a global property: the function is called from
# directories that do not see this one's variables.
if(WEFT_GDB_EXTENSION)
  set_property(GLOBAL PROPERTY weft_gdb_extension "${WEFT_GDB_EXTENSION}")
else()
  cmake_path(SET extension NORMALIZE "${CMAKE_CURRENT_LIST_DIR}/../tools/gdb/weft_gdb.py")
  set_property(GLOBAL PROPERTY weft_gdb_extension "${extension}")
  unset(extension)
endif()

# weft_gdb_autoload(target ...): writes <program>-gdb.py beside each
# target's executable. gdb runs a file of that name when it loads the
# program, if the directory is in its auto-load safe-path
# (`add-auto-load-safe-path <dir>` in ~/.gdbinit), and this one sources weft's
# gdb extension from where this weft has it. A file beside the program, not a
# .debug_gdb_scripts section: weft is header-only, so a section would be
# compiled into every translation unit, and it would have to name the
# extension by a path fixed at compile time all the same.
function(weft_gdb_autoload)
  get_property(extension GLOBAL PROPERTY weft_gdb_extension)
  foreach(target IN LISTS ARGN)
    file(GENERATE OUTPUT "$<TARGET_FILE:${target}>-gdb.py" CONTENT
"# Written by weft's CMake (weft_gdb_autoload): gdb auto-loads this file with
# the program beside it and it loads weft's gdb extension (weft threads,
# weft thread, weft blocks; docs/debugging.md, \"gdb\").
import os
import gdb

_weft_gdb_extension = \"${extension}\"
if os.path.isfile(_weft_gdb_extension):
    gdb.execute(\"source \" + _weft_gdb_extension)
else:
    print(\"weft: %s is not there any more: source weft's gdb extension (weft_gdb.py) by hand\" % _weft_gdb_extension)
")
  endforeach()
endfunction()

function(weft_add_cuda_executable name)
  if(NOT ARGN)
    message(FATAL_ERROR "weft_add_cuda_executable(${name}): no source files given")
  endif()
  set(sources)
  set(others)
  set(ported_units 0)
  set(stackless ${WEFT_PORT_STACKLESS})
  set(program_sources)
  foreach(source IN LISTS ARGN)
    if(source STREQUAL "NO_STACKLESS")
      set(stackless OFF)
      continue()
    endif()
    cmake_path(ABSOLUTE_PATH source BASE_DIRECTORY ${CMAKE_CURRENT_SOURCE_DIR} NORMALIZE OUTPUT_VARIABLE input)
    list(APPEND program_sources ${input})
  endforeach()
  list(REMOVE_ITEM ARGN NO_STACKLESS)
  if(NOT ARGN)
    message(FATAL_ERROR "weft_add_cuda_executable(${name}): no source files given")
  endif()
  foreach(source IN LISTS ARGN)
    if(NOT source MATCHES "\\.cuh?$")
      list(APPEND sources ${source})
      list(APPEND others ${source})
      continue()
    endif()
    cmake_path(ABSOLUTE_PATH source BASE_DIRECTORY ${CMAKE_CURRENT_SOURCE_DIR} NORMALIZE OUTPUT_VARIABLE input)
    # The ports mirror the sources' layout below the source directory, so
    # that two a.cu in different folders do not collide and a port's
    # `#include "x.cuh"` finds the port of x.cuh beside it.
    cmake_path(RELATIVE_PATH input BASE_DIRECTORY ${CMAKE_CURRENT_SOURCE_DIR} OUTPUT_VARIABLE relative)
    string(REPLACE "../" "__/" relative "${relative}")
    string(REPLACE ":" "_" relative "${relative}")
    set(output ${CMAKE_CURRENT_BINARY_DIR}/${name}.weft-port/${relative})
    if(source MATCHES "\\.cu$")
      string(APPEND output ".cpp")
      math(EXPR ported_units "${ported_units} + 1")
    endif()
    cmake_path(GET output PARENT_PATH output_directory)
    # The program's other sources: a kernel one of them names stays void.
    set(stackless_options)
    if(stackless)
      foreach(other IN LISTS program_sources)
        if(NOT other STREQUAL input)
          list(APPEND stackless_options --program-source ${other})
        endif()
      endforeach()
    else()
      set(stackless_options --no-stackless)
    endif()
    # A race-check build's region versions read the __shared__ arrays that
    # cannot race untraced (weft-port --race-check; docs/debugging.md, "Race check").
    string(TOLOWER "${WEFT_SANITIZE}" sanitizers)
    if("race" IN_LIST sanitizers)
      list(APPEND stackless_options --race-check)
    endif()
    add_custom_command(
      OUTPUT ${output}
      COMMAND ${CMAKE_COMMAND} -E make_directory ${output_directory}
      COMMAND weft::port ${input} -o ${output} --source-root ${CMAKE_CURRENT_SOURCE_DIR} --port-root
              ${CMAKE_CURRENT_BINARY_DIR}/${name}.weft-port --depfile ${output}.d ${stackless_options}
      # The tool's file too: an imported weft-port (an installed one, or
      # WEFT_PORT_EXECUTABLE) gives no target dependency.
      DEPENDS ${input} ${program_sources} weft::port $<TARGET_FILE:weft::port>
      DEPFILE ${output}.d
      COMMENT "Porting ${source} for weft"
      VERBATIM)
    # `#include "y.h"` looks beside the file being compiled, which is now the
    # port: look beside the source too, for the headers that are not ported.
    cmake_path(GET input PARENT_PATH directory)
    set_source_files_properties(${output} PROPERTIES COMPILE_OPTIONS "-iquote;${directory}")
    list(APPEND sources ${output})
  endforeach()
  add_executable(${name} ${sources})
  target_compile_features(${name} PRIVATE cxx_std_20)
  # weft::cuda: weft plus CUDA's header names (<cuda_runtime.h>, ...).
  target_link_libraries(${name} PRIVATE weft::cuda)
  if(WEFT_PRECOMPILE_HEADERS AND ported_units GREATER_EQUAL 2)
    target_precompile_headers(${name} PRIVATE <weft.hpp>)
    # The sources compiled as they are may not include weft.hpp first, or at all.
    if(others)
      set_source_files_properties(${others} PROPERTIES SKIP_PRECOMPILE_HEADERS ON)
    endif()
  endif()
  if(WEFT_GDB_AUTOLOAD)
    weft_gdb_autoload(${name})
  endif()
endfunction()

# weft_precompile_headers(target ...): compiles the targets' C++ sources with
# a precompiled <weft.hpp>, for a target that links weft::weft and whose
# sources all include weft.hpp (it is then parsed ahead of each source's first
# line, so a macro a source defines before including it no longer reaches
# it). The build first makes the precompiled header, once per target; each
# source then skips parsing weft.hpp, about a third of what a small program
# costs to compile at -O2. A source that must not have it:
# set_source_files_properties(x.cpp PROPERTIES SKIP_PRECOMPILE_HEADERS ON).
function(weft_precompile_headers)
  foreach(target IN LISTS ARGN)
    target_precompile_headers(${target} PRIVATE <weft.hpp>)
  endforeach()
endfunction()

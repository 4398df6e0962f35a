# WEFT_SANITIZE: builds every program that links weft::weft (or weft::cuda,
# so every weft_add_cuda_executable) with the compiler's sanitizers.
#
#   cmake -S . -B build-asan -DWEFT_SANITIZE="address;undefined"
#
# A list of `address` (AddressSanitizer: out-of-bounds accesses to the heap,
# which is where device memory lives, to the stack and to globals; use after
# free; leaks), `undefined` (UndefinedBehaviorSanitizer: signed overflow,
# bad shifts, misaligned or null accesses, ...) and `thread`
# (ThreadSanitizer: data races between host threads), and `race` (weft's
# race check of CUDA threads, Clang only: cmake/WeftRaceCheck.cmake). `address` and `thread`
# exclude each other; `undefined` goes with either. weft's headers announce
# every fiber switch to ASan and TSan when they see the sanitizer on
# (include/weft/detail/fibers/fiber_sanitizer.hpp), so that neither
# reports or warns about the stack switches of CUDA threads
# (docs/debugging.md, "Sanitizer builds").
#
# The flags are interface options of the weft target: in weft's own build
# they apply to its tests, examples and benchmarks, but are not exported
# with it; a project that uses an installed weft sets WEFT_SANITIZE on its
# own configure, and weftConfig.cmake applies it to weft::weft there.
include_guard(GLOBAL)

set(WEFT_SANITIZE "" CACHE STRING "Sanitizers for programs built with weft: a list of address, undefined, thread, race")
option(WEFT_ASAN_USE_AFTER_RETURN "With WEFT_SANITIZE=address and Clang: also detect a local used after its function returned (slow with barriers)" OFF)

# The -fsanitize= flag that the list in WEFT_SANITIZE asks for, in
# `out_flag`, or an empty string; a configure error for a value that is not
# known or a combination the compilers refuse.
function(weft_sanitize_flag out_flag)
  set(known address undefined thread race)
  set(chosen)
  foreach(sanitizer IN LISTS WEFT_SANITIZE)
    string(TOLOWER "${sanitizer}" sanitizer)
    string(STRIP "${sanitizer}" sanitizer)
    if(sanitizer STREQUAL "")
      continue()
    endif()
    if(NOT sanitizer IN_LIST known)
      message(FATAL_ERROR "WEFT_SANITIZE: '${sanitizer}' is not one of address, undefined, thread, race "
                          "(a list: -DWEFT_SANITIZE=\"address;undefined\")")
    endif()
    list(APPEND chosen ${sanitizer})
  endforeach()
  list(REMOVE_DUPLICATES chosen)
  if("address" IN_LIST chosen AND "thread" IN_LIST chosen)
    message(FATAL_ERROR "WEFT_SANITIZE: address and thread cannot be combined (GCC and Clang refuse "
                        "-fsanitize=address,thread): configure two build trees, one with each")
  endif()
  # race is weft's own check, not a -fsanitize= value (weft_apply_sanitizers).
  list(REMOVE_ITEM chosen race)
  list(JOIN chosen "," joined)
  if(joined STREQUAL "")
    set(${out_flag} "" PARENT_SCOPE)
  else()
    set(${out_flag} "-fsanitize=${joined}" PARENT_SCOPE)
  endif()
endfunction()

# weft_apply_sanitizers(target [BUILD_INTERFACE]): adds WEFT_SANITIZE's
# flags to the target's interface compile and link options. BUILD_INTERFACE
# keeps them out of what is installed and exported.
function(weft_apply_sanitizers target)
  cmake_parse_arguments(PARSE_ARGV 1 arg "BUILD_INTERFACE" "" "")
  # The race check: its own instrumentation, beside any sanitizer.
  string(TOLOWER "${WEFT_SANITIZE}" requested)
  if("race" IN_LIST requested)
    include(${CMAKE_CURRENT_FUNCTION_LIST_DIR}/WeftRaceCheck.cmake)
    if(arg_BUILD_INTERFACE)
      weft_add_race_check(${target} BUILD_INTERFACE)
    else()
      weft_add_race_check(${target})
    endif()
  endif()
  weft_sanitize_flag(flag)
  if(flag STREQUAL "")
    return()
  endif()
  # Frame pointers make the sanitizers' stack traces exact and cheap; no
  # sibling calls keep every caller on them: a CUDA function that ends by
  # calling weft's helper (`return allocate_in_stream_order(...)`) otherwise
  # jumps to it and leaves no frame, so the memory check could not say
  # "made by cudaMallocAsync" (Clang 16, 2026-12-01).
  set(options ${flag} -fno-omit-frame-pointer -fno-optimize-sibling-calls)
  # With ASan, a program may go on after a bad access, as after a GPU's
  # (ASAN_OPTIONS=halt_on_error=0): the launch then fails with
  # cudaErrorIllegalAddress (docs/debugging.md, "Memory check"). By default
  # ASan still ends the process at the first report.
  if(flag MATCHES "address")
    list(APPEND options -fsanitize-recover=address)
    # Clang's ASan detects use-after-return by default, with a "fake stack"
    # mapped for every fiber a CUDA thread parks on: kernels with barriers
    # then ran 150-600x slower than the normal build, 14-30x without it
    # (docs/debugging.md, "What each mode costs"). GCC's is off unless asked.
    if(CMAKE_CXX_COMPILER_ID MATCHES "Clang" AND NOT WEFT_ASAN_USE_AFTER_RETURN)
      list(APPEND options -fsanitize-address-use-after-return=never)
    endif()
  endif()
  if(arg_BUILD_INTERFACE)
    list(TRANSFORM options PREPEND "$<BUILD_INTERFACE:")
    list(TRANSFORM options APPEND ">")
  endif()
  target_compile_options(${target} INTERFACE ${options})
  target_link_options(${target} INTERFACE ${options})
  message(STATUS "weft: programs built with ${flag} (WEFT_SANITIZE)")
endfunction()

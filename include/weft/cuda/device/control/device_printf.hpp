// printf in kernels (CUDA guide, "Formatted Output").
//
// A kernel calls the C library's printf itself: nothing here replaces it (C
// declares printf as a variadic function, which C++ cannot overload, and a
// macro would also rewrite host code). What CUDA promises still holds: the
// output of one printf call is never split by another thread's. POSIX
// requires every stdio function to lock the FILE for the whole call
// (flockfile), which glibc does, so concurrent calls from the SM workers come
// out one after another, even when a long line fills the stream's buffer
// mid-call. The CUDA threads of one block share a worker's OS thread, but a
// printf call never suspends its thread, so no other thread of the block can
// start printing inside it. tests/unit/cuda/device/printf_test.cpp checks this under load.
//
// Where it differs from a GPU:
// - printf returns the number of characters written, as in C; CUDA's
//   returns the number of arguments after the format (3 for
//   printf("%d %s %.2f\n", ...) on an H100).
// - Output appears as it is printed, not at the next synchronising call, so
//   a host printf after a launch may come after the kernel's lines rather
//   than before them. stdout is buffered as usual: fully when it is a pipe
//   or a file, so output reaches it when the buffer fills, at fflush, or at
//   exit.
// - There is no 1 MiB buffer to overflow (cudaLimitPrintfFifoSize): nothing
//   is dropped.
#pragma once

#include <cstdio>

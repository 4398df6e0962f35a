// Programmatic dependent launch inside a kernel (CUDA guide, "Programmatic
// Dependent Launch and Synchronization"); the engine is
// detail/scheduler/programmatic_launch.hpp.
#pragma once

#include "weft/detail/scheduler/programmatic_launch.hpp"

/// Lets the kernels that depend on this one programmatically start once
/// every block of it has called this (any thread, once counts) or exited.
/// It orders no memory: what the dependents must see, they read after
/// cudaGridDependencySynchronize.
inline void cudaTriggerProgrammaticLaunchCompletion() { weft::detail::trigger_programmatic_launch(); }

/// Waits until the kernels this one was allowed to overlap have completed,
/// with their writes visible; returns at once in a kernel launched without
/// programmatic dependence.
inline void cudaGridDependencySynchronize() { weft::detail::wait_for_programmatic_primaries(); }

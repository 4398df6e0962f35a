// The CUDA vocabulary every layer of weft speaks: cudaError_t's codes, the
// index and shape types uint3 and dim3, the stream and event handles, and
// the directions of a copy.
// The runtime below the CUDA surface needs these names (a failed block
// records a cudaError_t, a grid has a dim3 shape, a stream registry hands out
// cudaStream_t), so they live here, at the bottom, and both the surface
// (include/weft/cuda/) and the runtime (include/weft/detail/) include this
// header; nothing below the surface includes the surface.
//
// The values are CUDA 13's (driver_types.h, vector_types.h), so that code
// comparing against numbers behaves as on a GPU.
#pragma once

#include <cstdint>

// ---- Error codes (CUDA 13's driver_types.h) ----

enum cudaError : int {
  cudaSuccess = 0,
  cudaErrorInvalidValue = 1,
  cudaErrorMemoryAllocation = 2,
  cudaErrorInitializationError = 3,
  cudaErrorCudartUnloading = 4,
  cudaErrorProfilerDisabled = 5,
  cudaErrorProfilerNotInitialized = 6,
  cudaErrorProfilerAlreadyStarted = 7,
  cudaErrorProfilerAlreadyStopped = 8,
  cudaErrorInvalidConfiguration = 9,
  cudaErrorInvalidPitchValue = 12,
  cudaErrorInvalidSymbol = 13,
  cudaErrorInvalidHostPointer = 16,
  cudaErrorInvalidDevicePointer = 17,
  cudaErrorInvalidTexture = 18,
  cudaErrorInvalidTextureBinding = 19,
  cudaErrorInvalidChannelDescriptor = 20,
  cudaErrorInvalidMemcpyDirection = 21,
  cudaErrorAddressOfConstant = 22,
  cudaErrorTextureFetchFailed = 23,
  cudaErrorTextureNotBound = 24,
  cudaErrorSynchronizationError = 25,
  cudaErrorInvalidFilterSetting = 26,
  cudaErrorInvalidNormSetting = 27,
  cudaErrorMixedDeviceExecution = 28,
  cudaErrorNotYetImplemented = 31,
  cudaErrorMemoryValueTooLarge = 32,
  cudaErrorStubLibrary = 34,
  cudaErrorInsufficientDriver = 35,
  cudaErrorCallRequiresNewerDriver = 36,
  cudaErrorInvalidSurface = 37,
  cudaErrorDuplicateVariableName = 43,
  cudaErrorDuplicateTextureName = 44,
  cudaErrorDuplicateSurfaceName = 45,
  cudaErrorDevicesUnavailable = 46,
  cudaErrorIncompatibleDriverContext = 49,
  cudaErrorMissingConfiguration = 52,
  cudaErrorPriorLaunchFailure = 53,
  cudaErrorLaunchMaxDepthExceeded = 65,
  cudaErrorLaunchFileScopedTex = 66,
  cudaErrorLaunchFileScopedSurf = 67,
  cudaErrorSyncDepthExceeded = 68,
  cudaErrorLaunchPendingCountExceeded = 69,
  cudaErrorInvalidDeviceFunction = 98,
  cudaErrorNoDevice = 100,
  cudaErrorInvalidDevice = 101,
  cudaErrorDeviceNotLicensed = 102,
  cudaErrorSoftwareValidityNotEstablished = 103,
  cudaErrorStartupFailure = 127,
  cudaErrorInvalidKernelImage = 200,
  cudaErrorDeviceUninitialized = 201,
  cudaErrorMapBufferObjectFailed = 205,
  cudaErrorUnmapBufferObjectFailed = 206,
  cudaErrorArrayIsMapped = 207,
  cudaErrorAlreadyMapped = 208,
  cudaErrorNoKernelImageForDevice = 209,
  cudaErrorAlreadyAcquired = 210,
  cudaErrorNotMapped = 211,
  cudaErrorNotMappedAsArray = 212,
  cudaErrorNotMappedAsPointer = 213,
  cudaErrorECCUncorrectable = 214,
  cudaErrorUnsupportedLimit = 215,
  cudaErrorDeviceAlreadyInUse = 216,
  cudaErrorPeerAccessUnsupported = 217,
  cudaErrorInvalidPtx = 218,
  cudaErrorInvalidGraphicsContext = 219,
  cudaErrorNvlinkUncorrectable = 220,
  cudaErrorJitCompilerNotFound = 221,
  cudaErrorUnsupportedPtxVersion = 222,
  cudaErrorJitCompilationDisabled = 223,
  cudaErrorUnsupportedExecAffinity = 224,
  cudaErrorUnsupportedDevSideSync = 225,
  cudaErrorContained = 226,
  cudaErrorInvalidSource = 300,
  cudaErrorFileNotFound = 301,
  cudaErrorSharedObjectSymbolNotFound = 302,
  cudaErrorSharedObjectInitFailed = 303,
  cudaErrorOperatingSystem = 304,
  cudaErrorInvalidResourceHandle = 400,
  cudaErrorIllegalState = 401,
  cudaErrorLossyQuery = 402,
  cudaErrorSymbolNotFound = 500,
  cudaErrorNotReady = 600,
  cudaErrorIllegalAddress = 700,
  cudaErrorLaunchOutOfResources = 701,
  cudaErrorLaunchTimeout = 702,
  cudaErrorLaunchIncompatibleTexturing = 703,
  cudaErrorPeerAccessAlreadyEnabled = 704,
  cudaErrorPeerAccessNotEnabled = 705,
  cudaErrorSetOnActiveProcess = 708,
  cudaErrorContextIsDestroyed = 709,
  cudaErrorAssert = 710,
  cudaErrorTooManyPeers = 711,
  cudaErrorHostMemoryAlreadyRegistered = 712,
  cudaErrorHostMemoryNotRegistered = 713,
  cudaErrorHardwareStackError = 714,
  cudaErrorIllegalInstruction = 715,
  cudaErrorMisalignedAddress = 716,
  cudaErrorInvalidAddressSpace = 717,
  cudaErrorInvalidPc = 718,
  cudaErrorLaunchFailure = 719,
  cudaErrorCooperativeLaunchTooLarge = 720,
  cudaErrorTensorMemoryLeak = 721,
  cudaErrorNotPermitted = 800,
  cudaErrorNotSupported = 801,
  cudaErrorSystemNotReady = 802,
  cudaErrorSystemDriverMismatch = 803,
  cudaErrorCompatNotSupportedOnDevice = 804,
  cudaErrorMpsConnectionFailed = 805,
  cudaErrorMpsRpcFailure = 806,
  cudaErrorMpsServerNotReady = 807,
  cudaErrorMpsMaxClientsReached = 808,
  cudaErrorMpsMaxConnectionsReached = 809,
  cudaErrorMpsClientTerminated = 810,
  cudaErrorCdpNotSupported = 811,
  cudaErrorCdpVersionMismatch = 812,
  cudaErrorStreamCaptureUnsupported = 900,
  cudaErrorStreamCaptureInvalidated = 901,
  cudaErrorStreamCaptureMerge = 902,
  cudaErrorStreamCaptureUnmatched = 903,
  cudaErrorStreamCaptureUnjoined = 904,
  cudaErrorStreamCaptureIsolation = 905,
  cudaErrorStreamCaptureImplicit = 906,
  cudaErrorCapturedEvent = 907,
  cudaErrorStreamCaptureWrongThread = 908,
  cudaErrorTimeout = 909,
  cudaErrorGraphExecUpdateFailure = 910,
  cudaErrorExternalDevice = 911,
  cudaErrorInvalidClusterSize = 912,
  cudaErrorFunctionNotLoaded = 913,
  cudaErrorInvalidResourceType = 914,
  cudaErrorInvalidResourceConfiguration = 915,
  cudaErrorUnknown = 999,
  cudaErrorApiFailureBase = 10000,
};
using cudaError_t = cudaError;

// ---- Thread indices and launch shapes ----
//
// dim3's unspecified components are 1, as in CUDA, so dim3(256) is a 256x1x1
// shape.

struct uint3 {
  unsigned int x, y, z;
};

struct dim3 {
  unsigned int x = 1, y = 1, z = 1;

  constexpr dim3(unsigned int vx = 1, unsigned int vy = 1, unsigned int vz = 1) : x(vx), y(vy), z(vz) {}
  constexpr dim3(uint3 v) : x(v.x), y(v.y), z(v.z) {}
  constexpr operator uint3() const { return {x, y, z}; }
};

namespace weft {

/// Number of elements in a shape (threads in a block, blocks in a grid).
constexpr std::uint64_t volume(dim3 d) { return std::uint64_t{d.x} * d.y * d.z; }

/// The 3D index of linear position `linear` in `shape`, x fastest (CUDA's order).
constexpr uint3 unflatten(std::uint64_t linear, dim3 shape) {
  // One-dimensional shapes, the common case, need no division (a block's
  // start pays this for each block).
  if (shape.y == 1 && shape.z == 1) return {static_cast<unsigned>(linear), 0, 0};
  auto plane = std::uint64_t{shape.x} * shape.y;
  return {static_cast<unsigned>(linear % shape.x), static_cast<unsigned>(linear / shape.x % shape.y),
          static_cast<unsigned>(linear / plane)};
}

}  // namespace weft

// ---- Streams and events ----
//
// The handle types, the special stream handles, and the creation flags. The
// stream and event themselves are weft::detail's (detail/streams/).

struct CUstream_st;
using cudaStream_t = CUstream_st*;

// The handles CUDA's headers define for the legacy and per-thread default streams.
inline cudaStream_t const cudaStreamLegacy = reinterpret_cast<cudaStream_t>(0x1);
inline cudaStream_t const cudaStreamPerThread = reinterpret_cast<cudaStream_t>(0x2);
// Dynamic parallelism's per-grid streams, for launches from a kernel.
inline cudaStream_t const cudaStreamTailLaunch = reinterpret_cast<cudaStream_t>(0x3);
inline cudaStream_t const cudaStreamFireAndForget = reinterpret_cast<cudaStream_t>(0x4);
// The modes of cudaGraphLaunch from a kernel (cuda_device_runtime_api.h).
inline cudaStream_t const cudaStreamGraphTailLaunch = reinterpret_cast<cudaStream_t>(0x0100000000000000);
inline cudaStream_t const cudaStreamGraphFireAndForget = reinterpret_cast<cudaStream_t>(0x0200000000000000);
inline cudaStream_t const cudaStreamGraphFireAndForgetAsSibling = reinterpret_cast<cudaStream_t>(0x0300000000000000);

inline constexpr unsigned cudaStreamDefault = 0x0;
inline constexpr unsigned cudaStreamNonBlocking = 0x1;

struct CUevent_st;
using cudaEvent_t = CUevent_st*;

inline constexpr unsigned cudaEventDefault = 0x0;
inline constexpr unsigned cudaEventBlockingSync = 0x1;
inline constexpr unsigned cudaEventDisableTiming = 0x2;
inline constexpr unsigned cudaEventInterprocess = 0x4;

// cudaEventRecordWithFlags and cudaStreamWaitEvent: in a capture, the
// external forms become event record and wait nodes.
inline constexpr unsigned cudaEventRecordDefault = 0x0;
inline constexpr unsigned cudaEventRecordExternal = 0x1;
inline constexpr unsigned cudaEventWaitDefault = 0x0;
inline constexpr unsigned cudaEventWaitExternal = 0x1;

// ---- Copy directions (CUDA 13's driver_types.h) ----

enum cudaMemcpyKind : int {
  cudaMemcpyHostToHost = 0,
  cudaMemcpyHostToDevice = 1,
  cudaMemcpyDeviceToHost = 2,
  cudaMemcpyDeviceToDevice = 3,
  cudaMemcpyDefault = 4,
};

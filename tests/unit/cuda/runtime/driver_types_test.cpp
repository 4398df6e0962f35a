// driver_types.h's vocabulary with CUDA 13's values, and the calls that use
// it: stream attributes, the default memory pool, peer-to-peer attributes,
// attaching managed memory to a stream.
#include <doctest/doctest.h>
#include <weft.hpp>

#include <cstdint>

#include "error_checks.hpp"

TEST_CASE("driver_types enums have CUDA 13's values") {
  CHECK(cudaComputeModeDefault == 0);
  CHECK(cudaComputeModeExclusive == 1);
  CHECK(cudaComputeModeProhibited == 2);
  CHECK(cudaComputeModeExclusiveProcess == 3);
  CHECK(cudaAccessPropertyNormal == 0);
  CHECK(cudaAccessPropertyStreaming == 1);
  CHECK(cudaAccessPropertyPersisting == 2);
  CHECK(cudaSyncPolicyAuto == 1);
  CHECK(cudaSyncPolicyBlockingSync == 4);
  CHECK(cudaClusterSchedulingPolicySpread == 1);
  CHECK(cudaDevP2PAttrPerformanceRank == 1);
  CHECK(cudaDevP2PAttrAccessSupported == 2);
  CHECK(cudaDevP2PAttrNativeAtomicSupported == 3);
  CHECK(cudaDevP2PAttrCudaArrayAccessSupported == 4);
  CHECK(cudaMemPoolReuseFollowEventDependencies == 1);
  CHECK(cudaMemPoolAttrReleaseThreshold == 4);
  CHECK(cudaMemPoolAttrUsedMemHigh == 8);
  CHECK(cudaMemAllocationTypePinned == 1);
  CHECK(cudaMemHandleTypePosixFileDescriptor == 1);
  CHECK(cudaMemHandleTypeFabric == 8);
  CHECK(cudaMemAccessFlagsProtReadWrite == 3);
  CHECK(cudaStreamAttributeAccessPolicyWindow == cudaLaunchAttributeAccessPolicyWindow);
  CHECK(cudaStreamAttributeAccessPolicyWindow == 1);
  // The attribute value is CUDA's 64-byte union; a window is 32 bytes.
  CHECK(sizeof(cudaStreamAttrValue) == 64);
  CHECK(sizeof(cudaAccessPolicyWindow) == 32);
}

TEST_CASE("the enums of features weft does not run have CUDA 13's names and values") {
  // Every enumerator of CUDA 13.0's driver_types.h and cuda_runtime_api.h
  // (633) was compared with CUDA's own header once; these guard the ones
  // declared for graphs, textures, interop and JIT only.
  CHECK(cudaChannelFormatKindNV12 == 4);
  CHECK(cudaChannelFormatKindUnsignedBlockCompressed7SRGB == 30);
  CHECK(cudaResViewFormatUnsignedBlockCompressed7 == 0x22);
  CHECK(cudaResourceTypePitch2D == 3);
  CHECK(cudaGraphNodeTypeConditional == 13);
  CHECK(cudaStreamCaptureModeRelaxed == 2);
  CHECK(cudaGraphExecUpdateErrorAttributesChanged == 8);
  CHECK(cudaGraphInstantiateFlagUseNodePriority == 8);
  CHECK(cudaGraphDependencyTypeProgrammatic == 1);
  CHECK(cudaExternalSemaphoreHandleTypeTimelineSemaphoreWin32 == 10);
  CHECK(cudaJitCacheOptionCA == 2);
  CHECK(cudaLaunchAttributeNvlinkUtilCentricScheduling == 16);
  CHECK(cudaDevAttrMax == 148);
  CHECK(cudaFuncAttributeMax == 16);
  CHECK(cudaMemAllocationTypeManaged == 2);
  CHECK(cudaLogLevelWarning == 1);
}

TEST_CASE("the device's compute mode is the default one") {
  cudaDeviceProp p{};
  REQUIRE(cudaGetDeviceProperties(&p, 0) == cudaSuccess);
  int mode = -1;
  REQUIRE(cudaDeviceGetAttribute(&mode, cudaDevAttrComputeMode, 0) == cudaSuccess);
  CHECK(mode == cudaComputeModeDefault);
}

TEST_CASE("a stream's access policy window is stored and read back, as simpleAttributes sets it") {
  cudaStream_t s;
  REQUIRE(cudaStreamCreate(&s) == cudaSuccess);
  int data[16];
  cudaStreamAttrValue v{};
  v.accessPolicyWindow = {data, sizeof data, 0.6f, cudaAccessPropertyPersisting, cudaAccessPropertyStreaming};
  check_succeeded(cudaStreamSetAttribute(s, cudaStreamAttributeAccessPolicyWindow, &v));
  check_succeeded(cudaCtxResetPersistingL2Cache());
  cudaStreamAttrValue back{};
  check_succeeded(cudaStreamGetAttribute(s, cudaStreamAttributeAccessPolicyWindow, &back));
  CHECK(back.accessPolicyWindow.base_ptr == data);
  CHECK(back.accessPolicyWindow.num_bytes == sizeof data);
  CHECK(back.accessPolicyWindow.hitRatio == 0.6f);
  CHECK(back.accessPolicyWindow.hitProp == cudaAccessPropertyPersisting);
  CHECK(back.accessPolicyWindow.missProp == cudaAccessPropertyStreaming);

  // Unset attributes read as CUDA's defaults.
  check_succeeded(cudaStreamGetAttribute(s, cudaStreamAttributeSynchronizationPolicy, &back));
  CHECK(static_cast<int>(back.syncPolicy) == -1);  // what an H100 reads back unset (pdl_probe.expected)
  check_succeeded(cudaStreamGetAttribute(0, cudaStreamAttributeAccessPolicyWindow, &back));
  CHECK(back.accessPolicyWindow.base_ptr == nullptr);
  CHECK(back.accessPolicyWindow.num_bytes == 0);

  // A launch-only attribute is not a stream's; a null value is refused.
  check_failed_with(cudaStreamSetAttribute(s, cudaLaunchAttributeCooperative, &v), cudaErrorInvalidValue);
  check_failed_with(cudaStreamSetAttribute(s, cudaStreamAttributeAccessPolicyWindow, nullptr), cudaErrorInvalidValue);
  REQUIRE(cudaStreamDestroy(s) == cudaSuccess);
  check_failed_with(cudaStreamGetAttribute(s, cudaStreamAttributeAccessPolicyWindow, &back),
                    cudaErrorInvalidResourceHandle);
}

TEST_CASE("the default memory pool keeps its attributes") {
  cudaMemPool_t pool = nullptr;
  check_succeeded(cudaDeviceGetDefaultMemPool(&pool, 0));
  REQUIRE(pool != nullptr);
  cudaMemPool_t current = nullptr;
  check_succeeded(cudaDeviceGetMemPool(&current, 0));
  CHECK(current == pool);
  check_succeeded(cudaDeviceSetMemPool(0, pool));

  std::uint64_t threshold = 0;
  check_succeeded(cudaMemPoolGetAttribute(pool, cudaMemPoolAttrReleaseThreshold, &threshold));
  CHECK(threshold == 0);
  std::uint64_t max = UINT64_MAX;  // streamOrderedAllocation's setting
  check_succeeded(cudaMemPoolSetAttribute(pool, cudaMemPoolAttrReleaseThreshold, &max));
  check_succeeded(cudaMemPoolGetAttribute(pool, cudaMemPoolAttrReleaseThreshold, &threshold));
  CHECK(threshold == UINT64_MAX);
  std::uint64_t zero = 0;
  check_succeeded(cudaMemPoolSetAttribute(pool, cudaMemPoolAttrReleaseThreshold, &zero));

  int reuse = 0;
  check_succeeded(cudaMemPoolGetAttribute(pool, cudaMemPoolReuseAllowOpportunistic, &reuse));
  CHECK(reuse == 1);
  // The current counters cannot be set; the high-water marks only reset.
  std::uint64_t one = 1;
  check_failed_with(cudaMemPoolSetAttribute(pool, cudaMemPoolAttrUsedMemCurrent, &one), cudaErrorInvalidValue);
  check_failed_with(cudaMemPoolSetAttribute(pool, cudaMemPoolAttrUsedMemHigh, &one), cudaErrorInvalidValue);
  check_succeeded(cudaMemPoolSetAttribute(pool, cudaMemPoolAttrUsedMemHigh, &zero));
  check_succeeded(cudaMemPoolTrimTo(pool, 0));

  int not_a_pool = 0;
  check_failed_with(cudaMemPoolTrimTo(reinterpret_cast<cudaMemPool_t>(&not_a_pool), 0), cudaErrorInvalidValue);
  check_failed_with(cudaDeviceGetDefaultMemPool(&pool, 99), cudaErrorInvalidDevice);
}

TEST_CASE("peer-to-peer attributes: a device is not its own peer") {
  int value = -1;
  check_failed_with(cudaDeviceGetP2PAttribute(&value, cudaDevP2PAttrAccessSupported, 0, 0), cudaErrorInvalidDevice);
  check_failed_with(cudaDeviceGetP2PAttribute(nullptr, cudaDevP2PAttrAccessSupported, 0, 0), cudaErrorInvalidValue);
}

TEST_CASE("managed memory attaches to a stream, with no effect") {
  int* p = nullptr;
  REQUIRE(cudaMallocManaged(&p, 64) == cudaSuccess);
  cudaStream_t s;
  REQUIRE(cudaStreamCreate(&s) == cudaSuccess);
  check_succeeded(cudaStreamAttachMemAsync(s, p, 0, cudaMemAttachSingle));
  check_succeeded(cudaStreamAttachMemAsync(nullptr, p, 0, cudaMemAttachGlobal));
  check_failed_with(cudaStreamAttachMemAsync(s, p, 0, 0x10), cudaErrorInvalidValue);
  REQUIRE(cudaStreamSynchronize(s) == cudaSuccess);
  REQUIRE(cudaStreamDestroy(s) == cudaSuccess);
  REQUIRE(cudaFree(p) == cudaSuccess);
}

TEST_CASE("multi_device: peer-to-peer attributes between two devices" * doctest::test_suite("multi_device")) {
  int count = 0;
  REQUIRE(cudaGetDeviceCount(&count) == cudaSuccess);
  if (count < 2) return;
  int value = -1;
  check_succeeded(cudaDeviceGetP2PAttribute(&value, cudaDevP2PAttrAccessSupported, 0, 1));
  CHECK(value == 1);
  check_succeeded(cudaDeviceGetP2PAttribute(&value, cudaDevP2PAttrNativeAtomicSupported, 1, 0));
  CHECK(value == 1);
  check_succeeded(cudaDeviceGetP2PAttribute(&value, cudaDevP2PAttrPerformanceRank, 0, 1));
  CHECK(value == 0);
}

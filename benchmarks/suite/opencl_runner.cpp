#include "opencl_runner.hpp"

#include <CL/cl.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "opencl_kernels.hpp"

namespace weft_bench::suite {

class opencl_session {
 public:
  cl_context context = nullptr;
  cl_command_queue queue = nullptr;
  cl_program program = nullptr;

  ~opencl_session() {
    if (program) clReleaseProgram(program);
    if (queue) clReleaseCommandQueue(queue);
    if (context) clReleaseContext(context);
  }
};

namespace {

std::string error_text(const char* call, cl_int code) { return std::string(call) + " failed: " + std::to_string(code); }

cl_device_id first_cpu_device(std::string& why) {
  cl_uint platforms = 0;
  if (clGetPlatformIDs(0, nullptr, &platforms) != CL_SUCCESS || platforms == 0) {
    why = "no OpenCL platform (is pocl-opencl-icd installed?)";
    return nullptr;
  }
  std::vector<cl_platform_id> ids(platforms);
  clGetPlatformIDs(platforms, ids.data(), nullptr);
  for (cl_platform_id platform : ids) {
    cl_device_id device = nullptr;
    if (clGetDeviceIDs(platform, CL_DEVICE_TYPE_CPU, 1, &device, nullptr) == CL_SUCCESS) return device;
  }
  why = "no OpenCL CPU device";
  return nullptr;
}

std::string device_text(cl_device_id device, cl_device_info what) {
  char text[256] = {};
  clGetDeviceInfo(device, what, sizeof text - 1, text, nullptr);
  return text;
}

std::string build_options() {
  return "-DBLOCK_THREADS=" + std::to_string(block_threads) + " -DSTENCIL_RADIUS=" + std::to_string(stencil_radius) +
         " -DTRANSPOSE_TILE=" + std::to_string(transpose_tile) + " -DTRANSPOSE_ROWS=" + std::to_string(transpose_rows) +
         " -DMATMUL_TILE=" + std::to_string(matmul_tile) + " -DHISTOGRAM_BINS=" + std::to_string(histogram_bins) +
         " -DNBODY_TILE=" + std::to_string(nbody_tile) + " -DNBODY_SOFTENING=" + std::to_string(nbody_softening) + "f";
}

const char* kernel_name(kernel_kind kind) {
  switch (kind) {
    case kernel_kind::vector_add:
      return "vector_add";
    case kernel_kind::saxpy:
      return "saxpy";
    case kernel_kind::stencil:
      return "stencil";
    case kernel_kind::transpose:
      return "transpose";
    case kernel_kind::matmul:
      return "matmul";
    case kernel_kind::block_reduce:
      return "block_reduce";
    case kernel_kind::warp_reduce:
    case kernel_kind::cg_reduce:
      return "warp_reduce";  // both are a warp-level tree in local memory here
    case kernel_kind::scan_shared:
      return "scan_shared";
    case kernel_kind::scan_shuffle:
      return "scan_shuffle";
    case kernel_kind::histogram:
      return "histogram";
    case kernel_kind::nbody:
      return "nbody";
  }
  return "";
}

class opencl_implementation final : public implementation {
 public:
  opencl_implementation(std::shared_ptr<opencl_session> session, const problem& p)
      : session_(std::move(session)), p_(p) {
    cl_int e = CL_SUCCESS;
    kernel_ = clCreateKernel(session_->program, kernel_name(p.kind), &e);
    healthy_ = e == CL_SUCCESS;
    output_bytes_ = p.output_count * sizeof(float);  // int and float are both 4 bytes
    output_ = clCreateBuffer(session_->context, CL_MEM_READ_WRITE, output_bytes_, nullptr, &e);
    healthy_ &= e == CL_SUCCESS;
    if (!healthy_) return;

    const int n = p.n;
    int arg = 0;
    auto add_input = [&](const void* data, std::size_t bytes) {
      cl_mem buffer = clCreateBuffer(session_->context, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, bytes,
                                     const_cast<void*>(data), &e);
      healthy_ &= e == CL_SUCCESS;
      inputs_.push_back(buffer);
      clSetKernelArg(kernel_, arg++, sizeof buffer, &buffer);
    };
    auto add_output = [&] { clSetKernelArg(kernel_, arg++, sizeof output_, &output_); };
    auto add_n = [&] { clSetKernelArg(kernel_, arg++, sizeof n, &n); };
    auto floats = [](const std::vector<float>& v) { return v.size() * sizeof(float); };

    global_[0] = n, local_[0] = block_threads;
    switch (p.kind) {
      case kernel_kind::vector_add:
        add_input(p.a.data(), floats(p.a)), add_input(p.b.data(), floats(p.b)), add_output(), add_n();
        break;
      case kernel_kind::saxpy:
        clSetKernelArg(kernel_, arg++, sizeof p.alpha, &p.alpha);
        add_input(p.a.data(), floats(p.a)), add_input(p.b.data(), floats(p.b)), add_output(), add_n();
        break;
      case kernel_kind::stencil:
      case kernel_kind::scan_shared:
      case kernel_kind::scan_shuffle:
        add_input(p.ints.data(), p.ints.size() * sizeof(int)), add_output();
        break;
      case kernel_kind::transpose:
        add_input(p.a.data(), floats(p.a)), add_output(), add_n();
        dimensions_ = 2;
        global_[0] = n, global_[1] = n / (transpose_tile / transpose_rows);
        local_[0] = transpose_tile, local_[1] = transpose_rows;
        break;
      case kernel_kind::matmul:
        add_input(p.a.data(), floats(p.a)), add_input(p.b.data(), floats(p.b)), add_output(), add_n();
        dimensions_ = 2;
        global_[0] = global_[1] = n;
        local_[0] = local_[1] = matmul_tile;
        break;
      case kernel_kind::block_reduce:
      case kernel_kind::warp_reduce:
      case kernel_kind::cg_reduce:
        add_input(p.a.data(), floats(p.a)), add_output();
        break;
      case kernel_kind::histogram:
        add_input(p.bytes.data(), p.bytes.size()), add_output(), add_n();
        global_[0] = std::size_t(std::min(histogram_blocks, n / block_threads)) * block_threads;
        break;
      case kernel_kind::nbody:
        add_input(p.a.data(), floats(p.a)), add_output(), add_n();
        local_[0] = nbody_tile;
        break;
    }
  }

  ~opencl_implementation() override {
    for (cl_mem buffer : inputs_)
      if (buffer) clReleaseMemObject(buffer);
    if (output_) clReleaseMemObject(output_);
    if (kernel_) clReleaseKernel(kernel_);
  }

  void run() override {
    if (!healthy_) return;
    cl_int e = CL_SUCCESS;
    if (p_.kind == kernel_kind::histogram) {
      cl_uint zero = 0;
      e = clEnqueueFillBuffer(session_->queue, output_, &zero, sizeof zero, 0, output_bytes_, 0, nullptr, nullptr);
    }
    if (e == CL_SUCCESS)
      e = clEnqueueNDRangeKernel(session_->queue, kernel_, dimensions_, nullptr, global_, local_, 0, nullptr, nullptr);
    if (e == CL_SUCCESS) e = clFinish(session_->queue);
    if (e != CL_SUCCESS) {
      std::fprintf(stderr, "OpenCL: %s: %s\n", p_.title.c_str(), error_text("launch", e).c_str());
      healthy_ = false;
    }
  }

  void read_result(void* out) override {
    if (!healthy_ || clEnqueueReadBuffer(session_->queue, output_, CL_TRUE, 0, output_bytes_, out, 0, nullptr,
                                         nullptr) != CL_SUCCESS)
      healthy_ = false;
  }
  bool healthy() const override { return healthy_; }

 private:
  std::shared_ptr<opencl_session> session_;
  const problem& p_;
  cl_kernel kernel_ = nullptr;
  std::vector<cl_mem> inputs_;
  cl_mem output_ = nullptr;
  std::size_t output_bytes_ = 0;
  cl_uint dimensions_ = 1;
  std::size_t global_[2] = {0, 1}, local_[2] = {1, 1};
  bool healthy_ = false;
};

}  // namespace

std::shared_ptr<opencl_session> open_opencl(unsigned threads, opencl_status& status) {
  // PoCL's pthread device reads its thread count when it starts: before the
  // first OpenCL call. An explicit setting in the environment wins.
  setenv("POCL_MAX_PTHREAD_COUNT", std::to_string(threads).c_str(), 0);
  std::string why;
  cl_device_id device = first_cpu_device(why);
  if (!device) {
    status.description = why;
    status.absence = "no device";
    return nullptr;
  }
  auto session = std::make_shared<opencl_session>();
  cl_int e = CL_SUCCESS;
  session->context = clCreateContext(nullptr, 1, &device, nullptr, nullptr, &e);
  if (e == CL_SUCCESS) session->queue = clCreateCommandQueue(session->context, device, 0, &e);
  if (e != CL_SUCCESS) {
    status.description = error_text("clCreateContext/clCreateCommandQueue", e);
    status.absence = "failed";
    return nullptr;
  }
  const char* source = opencl_kernel_source;
  session->program = clCreateProgramWithSource(session->context, 1, &source, nullptr, &e);
  auto start = std::chrono::steady_clock::now();
  std::string options = build_options();
  if (e == CL_SUCCESS) e = clBuildProgram(session->program, 1, &device, options.c_str(), nullptr, nullptr);
  status.build_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  if (e != CL_SUCCESS) {
    std::size_t size = 0;
    clGetProgramBuildInfo(session->program, device, CL_PROGRAM_BUILD_LOG, 0, nullptr, &size);
    std::string log(size, '\0');
    clGetProgramBuildInfo(session->program, device, CL_PROGRAM_BUILD_LOG, size, log.data(), nullptr);
    std::fprintf(stderr, "OpenCL build log:\n%s\n", log.c_str());
    status.description = error_text("clBuildProgram", e);
    status.absence = "failed";
    return nullptr;
  }
  const char* pocl_threads = std::getenv("POCL_MAX_PTHREAD_COUNT");
  status.available = true;
  status.description = device_text(device, CL_DEVICE_NAME) + ", " + device_text(device, CL_DEVICE_VERSION) +
                       ", POCL_MAX_PTHREAD_COUNT=" + (pocl_threads ? pocl_threads : "?");
  return session;
}

std::unique_ptr<implementation> make_opencl_implementation(const std::shared_ptr<opencl_session>& session,
                                                           const problem& p) {
  if (!session) return nullptr;
  return std::make_unique<opencl_implementation>(session, p);
}

}  // namespace weft_bench::suite

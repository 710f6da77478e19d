// libtorch's autograd on the workloads of `tapecheck bench`, for side-by-side figures in
// bench/RESULTS.md (bench/run.sh runs both). One thread, double, median of several runs; the
// inputs are those of bench/workloads.cpp, so both sides compute the same values.
//   torch_bench [--glibc-allocator] relu-chain NODES REPEAT
//   torch_bench [--glibc-allocator] mlp WIDTH DEPTH REPEAT
// Built when CMake finds libtorch (Debian's libtorch-dev).
//
// Both sides can allocate alike. The tapecheck program allocates through tcmalloc (cli/CMakeLists.txt);
// bench/run.sh preloads it here too ("allocator":"tcmalloc"). Under glibc's allocator this program
// keeps freed memory for reuse as tapecheck's command line does under glibc (cli/main.cpp,
// "reuse"), unless --glibc-allocator is given. With glibc's defaults every block over 128 KiB is
// mapped afresh and each of its pages faults on first touch, which on this machine's virtual
// memory costs libtorch's 256-wide MLP backward about 40 times its arithmetic.
#include <dlfcn.h>
#include <malloc.h>
#include <torch/torch.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

namespace {

using Clock = std::chrono::steady_clock;

double millisecondsSince(Clock::time_point start) {
  return std::chrono::duration<double, std::milli>(Clock::now() - start).count();
}

double median(std::vector<double> times) {
  std::sort(times.begin(), times.end());
  return times[times.size() / 2];
}

const auto kDouble = torch::TensorOptions().dtype(torch::kFloat64);

// How this run allocates, printed with each result: "tcmalloc", "reuse" (glibc with tapecheck's
// settings) or "glibc".
const char* allocator = "reuse";

// A relu chain on [4] = [-2, -0, 0.5, 3]; the backward from ones at the last node is timed.
void reluChain(std::size_t nodes, std::size_t repeat) {
  std::vector<double> times;
  for (std::size_t run = 0; run < repeat; ++run) {
    auto x = torch::tensor({-2.0, -0.0, 0.5, 3.0}, kDouble).requires_grad_(true);
    torch::Tensor h = x;
    for (std::size_t k = 0; k < nodes; ++k) h = torch::relu(h);
    auto start = Clock::now();
    h.backward(torch::ones({4}, kDouble));
    times.push_back(millisecondsSince(start));
  }
  std::printf("{\"workload\":\"relu-chain-libtorch\",\"allocator\":\"%s\",\"nodes\":%zu,\"backward_ms\":%f,\"runs\":%zu}\n",
              allocator, nodes, median(times), repeat);
}

// bench/workloads.cpp's LCG: deterministic values in [-1, 1), divided by 16 there and here.
struct Lcg {
  std::uint64_t state = 12345;
  double next() {
    state = state * 6364136223846793005ULL + 1442695040888963407ULL;
    return static_cast<double>(state >> 11) / 4503599627370496.0 - 1.0;
  }
  torch::Tensor tensor(std::vector<std::int64_t> shape) {
    std::int64_t n = 1;
    for (auto d : shape) n *= d;
    std::vector<double> v(static_cast<std::size_t>(n));
    for (double& x : v) x = next() / 16.0;
    return torch::tensor(v, kDouble).reshape(shape).requires_grad_(true);
  }
};

// h = relu(W_i h + b_i) for `depth` layers, the input h and every W_i, b_i leaves that need
// gradients (as every input of tapecheck's graph gets one); forward and backward from ones timed
// apart.
void mlp(std::int64_t width, std::size_t depth, std::size_t repeat) {
  std::vector<double> forward, backward;
  for (std::size_t run = 0; run < repeat; ++run) {
    Lcg values;
    torch::Tensor x = values.tensor({width});
    std::vector<torch::Tensor> weights, biases;
    for (std::size_t layer = 0; layer < depth; ++layer) {
      weights.push_back(values.tensor({width, width}));
      biases.push_back(values.tensor({width}));
    }
    auto start = Clock::now();
    torch::Tensor h = x;
    for (std::size_t layer = 0; layer < depth; ++layer) h = torch::relu(torch::addmv(biases[layer], weights[layer], h));
    forward.push_back(millisecondsSince(start));
    start = Clock::now();
    h.backward(torch::ones({width}, kDouble));
    backward.push_back(millisecondsSince(start));
  }
  std::printf("{\"workload\":\"mlp-libtorch\",\"allocator\":\"%s\",\"width\":%lld,\"depth\":%zu,\"forward_ms\":%f,\"backward_ms\":%f,\"runs\":%zu}\n",
              allocator, static_cast<long long>(width), depth, median(forward), median(backward), repeat);
}

int usage() {
  std::fprintf(stderr,
               "usage: torch_bench [--glibc-allocator] relu-chain NODES REPEAT | "
               "torch_bench [--glibc-allocator] mlp WIDTH DEPTH REPEAT\n");
  return 2;
}

// The settings of tapecheck's command line (cli/main.cpp, keepFreedMemoryForReuse).
void keepFreedMemoryForReuse() {
  mallopt(M_MMAP_THRESHOLD, 32 << 20);
  mallopt(M_TRIM_THRESHOLD, 512 << 20);
}

}  // namespace

int main(int argc, char** argv) {
  if (dlsym(RTLD_DEFAULT, "tc_malloc") != nullptr) {  // preloaded: glibc's settings would not apply
    if (argc > 1 && std::strcmp(argv[1], "--glibc-allocator") == 0) {
      std::fprintf(stderr, "torch_bench: --glibc-allocator with tcmalloc preloaded\n");
      return 2;
    }
    allocator = "tcmalloc";
  } else if (argc > 1 && std::strcmp(argv[1], "--glibc-allocator") == 0) {
    --argc, ++argv;  // glibc's defaults, as a program that does not tune its allocator runs
    allocator = "glibc";
  } else {
    keepFreedMemoryForReuse();
  }
  torch::set_num_threads(1);
  auto count = [&](int i) { return static_cast<std::size_t>(std::strtoull(argv[i], nullptr, 10)); };
  if (argc == 4 && std::strcmp(argv[1], "relu-chain") == 0 && count(2) > 0 && count(3) > 0) {
    reluChain(count(2), count(3));
    return 0;
  }
  if (argc == 5 && std::strcmp(argv[1], "mlp") == 0 && count(2) > 0 && count(3) > 0 && count(4) > 0) {
    mlp(static_cast<std::int64_t>(count(2)), count(3), count(4));
    return 0;
  }
  return usage();
}

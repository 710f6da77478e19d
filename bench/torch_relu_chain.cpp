// The relu-chain workload on libtorch's autograd, for a side-by-side comparison with
// `tapecheck bench relu-chain`: a [4] float64 input [-2, -0, 0.5, 3], N relus, backward from
// ones at the last node, one thread, median of several runs. Built with -DTAPECHECK_BENCH_TORCH=ON.
#include <torch/torch.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <vector>

int main(int argc, char** argv) {
  std::size_t nodes = argc > 1 ? std::strtoull(argv[1], nullptr, 10) : 16000;
  std::size_t repeat = argc > 2 ? std::strtoull(argv[2], nullptr, 10) : 7;
  torch::set_num_threads(1);
  auto options = torch::TensorOptions().dtype(torch::kFloat64);
  std::vector<double> times;
  for (std::size_t run = 0; run < repeat; ++run) {
    auto x = torch::tensor({-2.0, -0.0, 0.5, 3.0}, options).requires_grad_(true);
    torch::Tensor h = x;
    for (std::size_t k = 0; k < nodes; ++k) h = torch::relu(h);
    auto start = std::chrono::steady_clock::now();
    h.backward(torch::ones({4}, options));
    times.push_back(std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count());
  }
  std::sort(times.begin(), times.end());
  std::printf("{\"workload\":\"relu-chain-libtorch\",\"nodes\":%zu,\"backward_ms\":%f,\"runs\":%zu}\n", nodes,
              times[times.size() / 2], repeat);
}

// A program that registers engines with bugs that end a process (an exception, a segfault on a
// shape, an abort, a hang) with tapecheck's command line (cli/main.h), for the crash-isolation
// tests (tests/cli/isolation_test.cpp). Each is tapecheck's compiled engine until its case comes:
//   throws     a graph with a matmul: "no kernel for matmul" (std::runtime_error)
//   segfaults  a broadcast that changes the shape: the naive broadcast gradient, written past
//              the end of the smaller input's buffer (here, through a null pointer, so it is sure)
//   aborts     a sum_axis: a failed assertion
//   hangs      a neg: waits forever
//   refuses    a mul: tc::UnsupportedCase, a refusal that is no bug (the case counts unsupported)
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <stdexcept>
#include <thread>

#include "cli/main.h"
#include "core/carriers/rational.h"

namespace {

enum class Bug { throws, segfaults, aborts, hangs, refuses };

template <class T>
class FaultyEngine final : public tc::Engine<T> {
 public:
  FaultyEngine(Bug bug, std::string_view name) : bug_(bug), name_(name) {}
  std::string_view name() const override { return name_; }
  tc::Result<std::unique_ptr<const tc::Execution<T>>> compile(const tc::Graph<T>& graph, const tc::Pack<T>& inputs,
                                                              const tc::Data<T>& data) const override {
    for (const tc::Node<T>& node : graph.nodes) misbehaveOn(graph, node);
    return tc::builtinEngine<T>("compiled").compile(graph, inputs, data);
  }

 private:
  void misbehaveOn(const tc::Graph<T>& graph, const tc::Node<T>& node) const {
    switch (bug_) {
      case Bug::throws:
        if (node.op == tc::OpKind::matmul) throw std::runtime_error("no kernel for matmul");
        break;
      case Bug::segfaults:
        if (node.op == tc::OpKind::broadcast && graph.shapeAt(node.args[0]) != node.shape) {
          volatile int* reduced = nullptr;
          *reduced = 1;
        }
        break;
      case Bug::aborts:
        if (node.op == tc::OpKind::sum_axis) {
          std::fprintf(stderr, "faulty_engines: assertion 'axis reduced' failed\n");
          std::abort();
        }
        break;
      case Bug::hangs:
        if (node.op == tc::OpKind::neg)
          for (;;) std::this_thread::sleep_for(std::chrono::seconds(1));
        break;
      case Bug::refuses:
        if (node.op == tc::OpKind::mul) throw tc::UnsupportedCase("mul");
        break;
    }
  }

  Bug bug_;
  std::string_view name_;
};

template <Bug bug>
tc::cli::NamedEngine faulty(const char* name) {
  static FaultyEngine<tc::Rational> onRational(bug, name);
  static FaultyEngine<double> onDouble(bug, name);
  return tc::cli::namedEngine(name, onRational, onDouble);
}

}  // namespace

TAPECHECK_MAIN(faulty<Bug::throws>("throws"), faulty<Bug::segfaults>("segfaults"), faulty<Bug::aborts>("aborts"),
               faulty<Bug::hangs>("hangs"), faulty<Bug::refuses>("refuses"))

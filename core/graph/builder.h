#pragma once
#include <optional>
#include <string_view>

#include "core/graph/graph.h"
#include "core/graph/node_program.h"
#include "core/graph/pack_checks.h"

namespace tc {

//! Builds a well-typed Graph one node at a time; every check happens here, so nothing after
//! construction re-checks structure.
template <class T>
class GraphBuilder {
 public:
  //! Checks input shapes and the data schema's tensor shapes.
  static Result<GraphBuilder> create(std::vector<Shape> inputs, DataSchema schema = {});

  //! Appends a node and returns its position, or an error naming the position, op and reason.
  //! `declared`, when given, must equal the shape the op's rule infers.
  Result<std::size_t> add(OpKind kind, std::vector<std::size_t> args, Attrs<T> attrs = {},
                          std::optional<Shape> declared = std::nullopt);
  //! Makes room for `count` more nodes at once. A caller that knows how many it will add (a file's
  //! node list) saves the copies of growing one node at a time and the memory they leave behind:
  //! an allocator keeps the freed smaller buffers, about as much again as the graph's nodes.
  void reserveNodes(std::size_t count) { graph_.nodes.reserve(graph_.nodes.size() + count); }
  //! Declares a data tensor of the schema (nodes added later may read it); its shape is checked.
  Result<void> addDataTensor(const std::string& key, Shape shape);
  //! Declares an index list of the schema (nodes that read it check its range).
  void addIndexList(const std::string& key, std::vector<std::size_t> rows);
  //! Appends an opaque node from OpaqueRegistry<T>.
  Result<std::size_t> addOpaque(std::string_view name, std::vector<std::size_t> args,
                                std::optional<Shape> declared = std::nullopt);

  const Graph<T>& graph() const { return graph_; }
  Graph<T> build() && { return std::move(graph_); }

 private:
  GraphBuilder(Graph<T> graph, std::size_t elements) : graph_(std::move(graph)), elements_(elements) {}
  Graph<T> graph_;
  std::size_t elements_;  // in all positions so far, at most kMaxGraphElements
};

}  // namespace tc

#pragma once
#include <map>
#include <set>
#include <string>
#include <vector>

#include "core/graph/graph.h"

namespace tc {

//! A named per-position column of a listing ("value", "gradient", ...).
template <class T>
struct ListingColumn {
  std::string name;
  const Pack<T>& pack;
};

//! Extra lines under a position of a listing (what differs there, say).
using ListingNotes = std::map<std::size_t, std::vector<std::string>>;

//! One block per position: "position  op(args) attributes  shape", what its program does when
//! the op's metadata says (opaque programs), one line per column, then the position's notes. A
//! column lists every value, or with `limit` > 0 a position of more values abbreviated
//! (abbreviatedValues).
template <class T>
std::string formatListing(const Graph<T>& graph, const std::vector<ListingColumn<T>>& columns,
                          const ListingNotes& notes = {}, std::size_t limit = 0);

//! What a picture shows besides the graph: per-position columns (values, seeds), the positions to
//! fill red and what red means (for the legend), and the output.
template <class T>
struct DotView {
  std::vector<ListingColumn<T>> columns;
  std::set<std::size_t> highlighted;
  std::string highlightMeaning;
  std::size_t output = 0;
};

//! The graph in Graphviz DOT: one box per position ("3: mask(2) key=m [2]", then a line per
//! column, abbreviated when large), an edge from each argument; highlighted positions filled red,
//! the output outlined in bold; a legend saying so and what each opaque program does.
template <class T>
std::string formatDot(const Graph<T>& graph, const DotView<T>& view);

//! "opaque const3: forward copies x; its program writes 3 into ...": what the node's program does,
//! from its op's metadata (ops::nodeDescription); empty for inputs and ops whose label says it.
template <class T>
std::string describeProgram(const Graph<T>& graph, std::size_t position);

//! The values of `t` for a message or a picture: all of them up to `limit`, else the first few,
//! "…", the last one and how many there are ("1 2 3 4 5 6 … 9 (20 values)").
template <class T>
std::string abbreviatedValues(const Tensor<T>& t, std::size_t limit = 8);

//! "matmul(0, 1)", "scale(3) c=-1/2", "opaque twice(2)", "input".
template <class T>
std::string formatNodeCall(const Graph<T>& graph, std::size_t position);

}  // namespace tc

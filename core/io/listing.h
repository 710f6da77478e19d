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

//! One block per position: "position  op(args) attributes  shape", then one line per column,
//! then the position's notes.
template <class T>
std::string formatListing(const Graph<T>& graph, const std::vector<ListingColumn<T>>& columns,
                          const ListingNotes& notes = {});

//! The graph in Graphviz DOT: one box per position ("3: mask(2) key=m [2]"), an edge from each
//! argument; `highlighted` positions filled red, the output outlined in bold.
template <class T>
std::string formatDot(const Graph<T>& graph, const std::set<std::size_t>& highlighted, std::size_t output);

//! "matmul(0, 1)", "scale(3) c=-1/2", "opaque twice(2)", "input".
template <class T>
std::string formatNodeCall(const Graph<T>& graph, std::size_t position);

}  // namespace tc

#pragma once
#include <fmt/format.h>
#include <fmt/ranges.h>

#include "core/carriers/carrier.h"
#include "core/io/listing.h"

namespace tc {

template <class T>
std::string formatNodeCall(const Graph<T>& graph, std::size_t position) {
  if (graph.isInput(position)) return "input";
  const Node<T>& node = graph.nodeAt(position);
  const Attrs<T>& a = node.attrs;
  std::string name = node.op == OpKind::opaque ? "opaque " + a.opaque->name : std::string(opName(node.op));
  std::string text = fmt::format("{}({})", name, fmt::join(node.args, ", "));
  auto value = [](const T& v) { return Carrier<T>::format(v); };
  switch (node.op) {
    case OpKind::scale: return text + " c=" + value(*a.c);
    case OpKind::clamp: return text + fmt::format(" lo={} hi={}", value(*a.lo), value(*a.hi));
    case OpKind::sum_axis: return text + fmt::format(" axis={}", a.axis);
    case OpKind::slice0: return text + fmt::format(" start={} len={}", a.start, a.len);
    case OpKind::reshape:
    case OpKind::broadcast: return text + " to " + formatShape(a.shape);
    case OpKind::mask:
    case OpKind::gather0: return text + " key=" + a.key;
    default: return text;
  }
}

template <class T>
std::string formatListing(const Graph<T>& graph, const std::vector<ListingColumn<T>>& columns, const ListingNotes& notes) {
  std::size_t width = 0;
  for (const auto& column : columns) width = std::max(width, column.name.size());
  std::string out;
  for (std::size_t p = 0; p < graph.positionCount(); ++p) {
    out += fmt::format("{:>4}  {}  {}\n", p, formatNodeCall(graph, p), formatShape(graph.shapeAt(p)));
    for (const auto& column : columns) {
      std::vector<std::string> values;
      for (const T& v : column.pack[p].values) values.push_back(Carrier<T>::format(v));
      out += fmt::format("        {:<{}}  {}\n", column.name, width, fmt::join(values, " "));
    }
    if (auto found = notes.find(p); found != notes.end())
      for (const std::string& line : found->second) out += fmt::format("        {}\n", line);
  }
  return out;
}

template <class T>
std::string formatDot(const Graph<T>& graph, const std::set<std::size_t>& highlighted, std::size_t output) {
  auto escaped = [](const std::string& text) {
    std::string out;
    for (char c : text) {
      if (c == '"' || c == '\\') out += '\\';
      out += c;
    }
    return out;
  };
  std::string out = "digraph tapecheck {\n  rankdir=BT;\n  node [shape=box, fontname=\"monospace\"];\n";
  for (std::size_t p = 0; p < graph.positionCount(); ++p) {
    std::string label = fmt::format("{}: {} {}", p, formatNodeCall(graph, p), formatShape(graph.shapeAt(p)));
    std::string style = highlighted.count(p) ? ", style=filled, fillcolor=\"#f4a6a6\"" : "";
    if (p == output) style += ", penwidth=3";
    out += fmt::format("  p{} [label=\"{}\"{}];\n", p, escaped(label), style);
  }
  for (std::size_t p = graph.inputs.size(); p < graph.positionCount(); ++p)
    for (std::size_t a : graph.nodeAt(p).args) out += fmt::format("  p{} -> p{};\n", a, p);
  return out + "}\n";
}

}  // namespace tc

#pragma once
#include <fmt/format.h>
#include <fmt/ranges.h>

#include "core/carriers/carrier.h"
#include "core/io/listing.h"
#include "core/ops/library.hpp"

namespace tc {

template <class T>
std::string formatNodeCall(const Graph<T>& graph, std::size_t position) {
  if (graph.isInput(position)) return "input";
  const Node<T>& node = graph.nodeAt(position);
  std::string text = fmt::format("{}({})", ops::nodeLabel(node.op, node.attrs), fmt::join(node.args, ", "));
  for (const AttrSpec<T>& spec : ops::attributes<T>(node.op)) {
    if (!spec.listed) continue;
    std::visit(
        [&](auto field) {
          const auto& slot = node.attrs.*field;
          using Slot = std::remove_cvref_t<decltype(slot)>;
          if constexpr (std::is_same_v<Slot, std::optional<T>>) text += fmt::format(" {}={}", spec.name, Carrier<T>::format(*slot));
          else if constexpr (std::is_same_v<Slot, Shape>) text += " to " + formatShape(slot);
          else if constexpr (std::is_same_v<Slot, std::size_t> || std::is_same_v<Slot, std::string>)
            text += fmt::format(" {}={}", spec.name, slot);
          else assert(false && "value lists and opaque entries are not listed inline");
        },
        spec.field);
  }
  return text;
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

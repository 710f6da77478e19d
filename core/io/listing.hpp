#pragma once
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <iterator>

#include "core/carriers/carrier.h"
#include "core/io/listing.h"
#include "core/ops/library.hpp"

namespace tc {

template <class T>
std::string formatNodeCall(const Graph<T>& graph, std::size_t position) {
  if (graph.isInput(position)) return "input";
  const Node<T>& node = graph.nodeAt(position);
  std::string text = ops::nodeLabel(node.op, node.attrs) + "(";
  for (std::size_t i = 0; i < node.args.size(); ++i) fmt::format_to(std::back_inserter(text), "{}{}", i ? ", " : "", node.args[i]);
  text += ')';
  for (const AttrSpec<T>& spec : ops::attributes<T>(node.op)) {
    if (!spec.listed) continue;
    std::visit(
        [&](auto field) {
          const auto& slot = node.attrs.*field;
          using Slot = std::remove_cvref_t<decltype(slot)>;
          if constexpr (std::is_same_v<Slot, std::optional<T>>) text += fmt::format(" {}={}", spec.name, displayValue(*slot));
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
std::string abbreviatedValues(const Tensor<T>& t, std::size_t limit) {
  std::vector<std::string> shown;
  const bool all = t.size() <= limit;
  for (std::size_t i = 0; i < t.size() && (all || i + 2 < limit); ++i) shown.push_back(displayValue(t[i]));
  if (!all) shown.push_back(fmt::format("… {} ({} values)", displayValue(t[t.size() - 1]), t.size()));
  return fmt::format("{}", fmt::join(shown, " "));
}

//! The index list a node reads (gather0's rows: a repeated index is often the bug), or empty; with
//! `limit`, at most that many entries and the count.
template <class T>
std::string describeIndices(const Graph<T>& graph, std::size_t position, std::size_t limit) {
  if (graph.isInput(position)) return {};
  const Node<T>& node = graph.nodeAt(position);
  auto list = node.attrs.key.empty() ? graph.schema.indices.end() : graph.schema.indices.find(node.attrs.key);
  if (list == graph.schema.indices.end()) return {};
  const std::vector<std::size_t>& entries = list->second;
  if (limit == 0 || entries.size() <= limit) return fmt::format("{}", fmt::join(entries, " "));
  return fmt::format("{} … {} ({} entries)", fmt::join(entries.begin(), entries.begin() + static_cast<std::ptrdiff_t>(limit - 2), " "),
                     entries.back(), entries.size());
}

template <class T>
std::string describeProgram(const Graph<T>& graph, std::size_t position) {
  if (graph.isInput(position)) return {};
  const Node<T>& node = graph.nodeAt(position);
  std::string what = ops::nodeDescription(node.op, node.attrs);
  return what.empty() ? what : fmt::format("{}: {}", ops::nodeLabel(node.op, node.attrs), what);
}

template <class T>
std::string formatListing(const Graph<T>& graph, const std::vector<ListingColumn<T>>& columns, const ListingNotes& notes,
                          std::size_t limit) {
  std::size_t width = 0;
  for (const auto& column : columns) width = std::max(width, column.name.size());
  std::string out;
  auto line = std::back_inserter(out);
  for (std::size_t p = 0; p < graph.positionCount(); ++p) {
    fmt::format_to(line, "{:>4}  {}  {}\n", p, formatNodeCall(graph, p), formatShape(graph.shapeAt(p)));
    if (std::string what = describeProgram(graph, p); !what.empty()) fmt::format_to(line, "        {}\n", what);
    if (std::string indices = describeIndices(graph, p, limit); !indices.empty())
      fmt::format_to(line, "        {:<{}}  {}\n", "indices", width, indices);
    for (const auto& column : columns) {
      fmt::format_to(line, "        {:<{}}  ", column.name, width);
      const std::vector<T>& values = column.pack[p].values;
      if (limit > 0 && values.size() > limit) {
        out += abbreviatedValues(column.pack[p], limit);
      } else {
        for (std::size_t i = 0; i < values.size(); ++i) {
          if (i) out += ' ';
          appendDisplayValue(out, values[i]);
        }
      }
      out += '\n';
    }
    if (auto found = notes.find(p); found != notes.end())
      for (const std::string& line : found->second) out += fmt::format("        {}\n", line);
  }
  return out;
}

namespace detail {

inline std::string dotEscaped(const std::string& text) {
  std::string out;
  for (char c : text) {
    if (c == '"' || c == '\\') out += '\\';
    out += c;
  }
  return out;
}

// A box's label: the call, then one line per column; DOT's "\l" ends each line left-aligned.
template <class T>
std::string dotLabel(const Graph<T>& graph, const DotView<T>& view, std::size_t p) {
  std::string label = dotEscaped(fmt::format("{}: {} {}", p, formatNodeCall(graph, p), formatShape(graph.shapeAt(p)))) + "\\l";
  for (const auto& column : view.columns)
    label += dotEscaped(fmt::format("{}: {}", column.name, abbreviatedValues(column.pack[p], 6))) + "\\l";
  return label;
}

// The legend: what red and bold mean, what the columns are, what each opaque program does.
template <class T>
std::string dotLegend(const Graph<T>& graph, const DotView<T>& view) {
  std::vector<std::string> lines{"legend",
                                 "red fill: " + (view.highlighted.empty() ? std::string("no position is highlighted")
                                                                          : view.highlightMeaning),
                                 fmt::format("bold outline: the output, position {}", view.output)};
  if (!view.columns.empty()) lines.push_back("under each call: its values and seed (… abbreviates)");
  std::set<std::string> described;
  for (std::size_t p = graph.inputs.size(); p < graph.positionCount(); ++p)
    if (std::string what = describeProgram(graph, p); !what.empty() && described.insert(what).second) lines.push_back(what);
  std::string label;
  for (const std::string& line : lines) label += dotEscaped(line) + "\\l";
  return fmt::format("  legend [shape=note, fontname=\"sans-serif\", label=\"{}\"];\n", label);
}

}  // namespace detail

template <class T>
std::string formatDot(const Graph<T>& graph, const DotView<T>& view) {
  std::string out = "digraph tapecheck {\n  rankdir=BT;\n  node [shape=box, fontname=\"monospace\"];\n";
  for (std::size_t p = 0; p < graph.positionCount(); ++p) {
    std::string style = view.highlighted.count(p) ? ", style=filled, fillcolor=\"#f4a6a6\"" : "";
    if (p == view.output) style += ", penwidth=3";
    out += fmt::format("  p{} [label=\"{}\"{}];\n", p, detail::dotLabel(graph, view, p), style);
  }
  for (std::size_t p = graph.inputs.size(); p < graph.positionCount(); ++p)
    for (std::size_t a : graph.nodeAt(p).args) out += fmt::format("  p{} -> p{};\n", a, p);
  return out + detail::dotLegend(graph, view) + "}\n";
}

}  // namespace tc

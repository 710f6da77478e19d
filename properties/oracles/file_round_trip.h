#pragma once
// Oracle for the file format (docs/file-format.md): a case written with writeCase and read back
// with parseCase is the same case — every node with its op, arguments, shape and attributes, the
// data schema, the input values, data, seeds and output, and a saved failure — value by value, bit
// for bit on IEEE (-0 and ±inf included; every NaN reads back as a NaN, the format's one NaN).
// Every layer reads files through the same reader, so a reader or writer that loses information on
// one kind of literal is consistent everywhere; this property reads its own output back.
#include <fmt/format.h>

#include <optional>
#include <string>

#include "core/io/case_file.h"
#include "core/ops/library.hpp"
#include "properties/compare.hpp"

namespace tc::props {
namespace detail {

template <class T>
std::string firstDifferentValue(std::span<const T> written, std::span<const T> read) {
  if (written.size() != read.size()) return fmt::format("{} values written, {} read", written.size(), read.size());
  for (std::size_t i = 0; i < written.size(); ++i)
    if (!Carrier<T>::same(written[i], read[i]))
      return fmt::format("element {}: wrote {}, read {}", i, Carrier<T>::format(written[i]), Carrier<T>::format(read[i]));
  return {};
}

template <class T>
std::string tensorChange(const Tensor<T>& written, const Tensor<T>& read) {
  if (!(written.shape == read.shape))
    return fmt::format("shape {} read as {}", formatShape(written.shape), formatShape(read.shape));
  return firstDifferentValue<T>(written.values, read.values);
}

//! The first attribute of `op`'s schema that differs, as "name: what", or empty.
template <class T>
std::string attributeChange(OpKind op, const Attrs<T>& written, const Attrs<T>& read) {
  for (const AttrSpec<T>& spec : ops::attributes<T>(op)) {
    std::string change = std::visit(
        [&](auto member) -> std::string {
          const auto& w = written.*member;
          const auto& r = read.*member;
          using Field = std::remove_cvref_t<decltype(w)>;
          if constexpr (std::is_same_v<Field, std::optional<T>>) {
            if (w.has_value() != r.has_value()) return "present on one side only";
            return w ? firstDifferentValue<T>(std::span(&*w, 1), std::span(&*r, 1)) : std::string();
          } else if constexpr (std::is_same_v<Field, std::vector<T>>) {
            return firstDifferentValue<T>(w, r);
          } else if constexpr (std::is_same_v<Field, Shape>) {
            return w == r ? std::string() : fmt::format("{} read as {}", formatShape(w), formatShape(r));
          } else if constexpr (std::is_same_v<Field, std::size_t> || std::is_same_v<Field, std::string>) {
            return w == r ? std::string() : fmt::format("{} read as {}", w, r);
          } else {
            return w == r ? std::string() : "another opaque program";
          }
        },
        spec.field);
    if (!change.empty()) return fmt::format("attribute {}: {}", spec.name, change);
  }
  return {};
}

//! The first difference between a graph and its read-back copy, blaming its position.
template <class T>
Mismatch graphChange(const Graph<T>& written, const Graph<T>& read) {
  if (written.inputs != read.inputs) return Mismatch("the input shapes differ");
  if (written.nodes.size() != read.nodes.size())
    return Mismatch(fmt::format("{} nodes written, {} read", written.nodes.size(), read.nodes.size()));
  for (std::size_t k = written.inputs.size(); k < written.positionCount(); ++k) {
    const Node<T>& w = written.nodeAt(k);
    const Node<T>& r = read.nodeAt(k);
    std::string change;
    if (w.op != r.op) change = fmt::format("op {} read as {}", opName(w.op), opName(r.op));
    else if (w.args != r.args) change = "the arguments differ";
    else if (!(w.shape == r.shape)) change = fmt::format("shape {} read as {}", formatShape(w.shape), formatShape(r.shape));
    else change = attributeChange(w.op, w.attrs, r.attrs);
    if (!change.empty()) return Mismatch(fmt::format("{}: {}", describeNode(written, k), change), {k});
  }
  if (written.schema.tensors != read.schema.tensors || written.schema.indices != read.schema.indices)
    return Mismatch("the data schema differs");
  return {};
}

template <class T>
Mismatch packChange(std::string_view what, const Pack<T>& written, const Pack<T>& read) {
  if (written.size() != read.size()) return Mismatch(fmt::format("{}: {} tensors written, {} read", what, written.size(), read.size()));
  for (std::size_t p = 0; p < written.size(); ++p)
    if (std::string change = tensorChange(written[p], read[p]); !change.empty())
      return Mismatch(fmt::format("{} at position {}: {}", what, p, change), {p});
  return {};
}

//! The first difference between a case and its read-back copy.
template <class T>
Mismatch caseChange(const Case<T>& written, const Case<T>& read) {
  if (Mismatch m = graphChange(written.graph, read.graph); !m.empty()) return m;
  if (written.inputs.has_value() != read.inputs.has_value()) return Mismatch("the input values are present on one side only");
  if (written.inputs)
    if (Mismatch m = packChange("input values", *written.inputs, *read.inputs); !m.empty()) return m;
  if (written.data.size() != read.data.size()) return Mismatch("the data keys differ");
  for (const auto& [key, tensor] : written.data) {
    auto other = read.data.find(key);
    if (other == read.data.end()) return Mismatch(fmt::format("data {} is missing", key));
    if (std::string change = tensorChange(tensor, other->second); !change.empty())
      return Mismatch(fmt::format("data {}: {}", key, change));
  }
  if (written.output != read.output)
    return Mismatch(fmt::format("output {} read as {}", written.output, read.output), {written.output});
  if (Mismatch m = packChange("seeds", written.seeds, read.seeds); !m.empty()) return m;
  if (written.failureJson != read.failureJson) return Mismatch("the saved failure differs");
  return {};
}

}  // namespace detail

template <class T>
Verdict file_round_trip(const Case<T>& c) {
  const std::string text = writeCase(c);
  auto read = parseCase<T>(text);
  if (!read) return Verdict::fail("writeCase then parseCase: the written case does not read back: " + read.error().message);
  return verdictOf("writeCase then parseCase", detail::caseChange(c, *read));
}

}  // namespace tc::props

#pragma once
#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <charconv>
#include <fstream>
#include <set>
#include <sstream>

#include "core/graph/builder.hpp"
#include "core/ops/library.hpp"
#include "core/ops/opaque.h"
#include "core/graph/seed_pack.h"
#include "core/io/document_format.h"
#include "core/io/case_file.h"
#include "core/support/text.h"

namespace tc {
namespace io_detail {

using nlohmann::json;

// Where in the document an error is: a string, or a callable that writes one. Readers take either
// and write the place only when there is an error to name it in: a graph of 100,000 nodes is read
// without formatting 100,000 locations.
template <class Where>
std::string located(const Where& where) {
  if constexpr (std::is_invocable_v<const Where&>) return where();
  else return std::string(where);
}

// `where` followed by `suffix`, still written only when needed.
template <class Where, class... Args>
auto nested(const Where& where, fmt::format_string<Args...> suffix, Args... args) {
  const fmt::string_view text = suffix;  // checked against the arguments here, formatted later
  return [&where, text, args...] { return located(where) + fmt::format(fmt::runtime(text), args...); };
}

template <class Where>
Result<void> onlyKeys(const json& object, const std::vector<std::string_view>& allowed, const Where& where) {
  for (const auto& item : object.items()) {
    bool known = false;
    for (auto name : allowed) known = known || item.key() == name;
    if (!known) return fail(fmt::format("{}: unknown key {}", located(where), quote(item.key())));
  }
  return {};
}

template <class Where>
Result<std::size_t> readCount(const json& j, const Where& where) {
  if (j.is_number_unsigned()) return j.get<std::size_t>();
  // Text gives a signed integer only for "-0"; a document built in memory (a generated case, read
  // without writing it out) may hold any count as signed.
  if (j.is_number_integer() && j.get<std::int64_t>() >= 0) return static_cast<std::size_t>(j.get<std::int64_t>());
  if (j.is_number_integer()) return fail(fmt::format("{}: {} is negative", located(where), j.dump()));
  if (j.is_number_float()) return fail(fmt::format("{}: {} is not an integer in range", located(where), j.dump()));
  return fail(fmt::format("{}: expected a non-negative integer, got {}", located(where), j.type_name()));
}

template <class Where>
Result<Shape> readShape(const json& j, const Where& where) {
  if (!j.is_array()) return fail(fmt::format("{}: a shape must be an array of dimensions", located(where)));
  if (j.size() > kMaxRank)
    return fail(fmt::format("{}: rank {} exceeds the maximum rank {}", located(where), j.size(), kMaxRank));
  std::vector<std::size_t> dims;
  for (std::size_t i = 0; i < j.size(); ++i) {
    auto dim = readCount(j[i], nested(where, ": dimension {}", i));
    if (!dim) return std::unexpected(dim.error());
    dims.push_back(*dim);
  }
  if (auto size = checkDimensions(dims); !size) return fail(located(where) + ": " + size.error().message);
  return Shape(dims.begin(), dims.end());
}

template <class T, class Where>
Result<T> readValue(const json& j, const Where& where) {
  if (!j.is_string())
    return fail(fmt::format("{}: a value must be a string such as \"-3/4\" (exact), got {}", located(where),
                            j.type_name()));
  auto value = parseValue<T>(j.get_ref<const std::string&>());
  if (!value) return fail(located(where) + ": " + value.error().message);
  return value;
}

template <class T, class Where>
Result<Tensor<T>> readTensorValues(const json& j, const Shape& shape, const Where& where) {
  if (!j.is_array()) return fail(fmt::format("{}: values must be an array", located(where)));
  std::size_t expected = elementCount(shape);
  if (j.size() != expected)
    return fail(fmt::format("{}: shape {} needs {} values, got {}", located(where), formatShape(shape), expected,
                            j.size()));
  std::vector<T> values;
  values.reserve(expected);
  for (std::size_t i = 0; i < j.size(); ++i) {
    if (j[i].is_string())  // the common case, without building a location for an error
      if (auto v = parseValue<T>(j[i].get_ref<const std::string&>())) {
        values.push_back(std::move(*v));
        continue;
      }
    auto v = readValue<T>(j[i], nested(where, "[{}]", i));
    if (!v) return std::unexpected(v.error());
    values.push_back(std::move(*v));
  }
  return Tensor<T>(shape, std::move(values));
}

//! Reads one attribute into its field: values exactly for the carrier, counts, shapes, the
//! data key, the opaque entry by name, and a `values` list shaped by the `shape` read before it.
template <class T, class Where>
Result<void> readAttribute(const AttrSpec<T>& spec, const json& j, Attrs<T>& out, const Where& where) {
  const auto label = nested(where, ": attribute '{}'", spec.name);
  auto store = [](auto& slot, auto parsed) -> Result<void> {
    if (!parsed) return std::unexpected(parsed.error());
    slot = std::move(*parsed);
    return {};
  };
  return std::visit(
      [&](auto field) -> Result<void> {
        auto& slot = out.*field;
        using Slot = std::remove_reference_t<decltype(slot)>;
        if constexpr (std::is_same_v<Slot, std::optional<T>>) {
          return store(slot, readValue<T>(j, label));
        } else if constexpr (std::is_same_v<Slot, std::size_t>) {
          return store(slot, readCount(j, label));
        } else if constexpr (std::is_same_v<Slot, Shape>) {
          return store(slot, readShape(j, label));
        } else if constexpr (std::is_same_v<Slot, std::vector<T>>) {
          auto values = readTensorValues<T>(j, out.shape, label);
          if (!values) return std::unexpected(values.error());
          slot = std::move(values->values);
          return {};
        } else if constexpr (std::is_same_v<Slot, std::string>) {
          if (!j.is_string()) return fail(label() + ": expected a string");
          slot = j.template get<std::string>();
          return {};
        } else {
          static_assert(std::is_same_v<Slot, const OpaqueDef<T>*>);
          if (!j.is_string()) return fail(label() + ": expected a string");
          const std::string name = j.template get<std::string>();
          slot = OpaqueRegistry<T>::instance().find(name);
          if (!slot) return fail(fmt::format("{}: unknown opaque name {}", located(where), quote(name)));
          return {};
        }
      },
      spec.field);
}

template <class T, class Where>
Result<Attrs<T>> readAttrs(OpKind kind, const json& node, const Where& where) {
  static const json kEmpty = json::object();
  auto found = node.find("attrs");
  const json& attrs = found != node.end() ? *found : kEmpty;
  if (!attrs.is_object()) return fail(located(where) + ": 'attrs' must be an object");
  Attrs<T> out;
  if (attrs.empty() && ops::attributes<T>(kind).empty()) return out;
  std::vector<std::string_view> names;
  for (const AttrSpec<T>& spec : ops::attributes<T>(kind)) names.push_back(spec.name);
  if (auto ok = onlyKeys(attrs, names, nested(where, ": attrs")); !ok) return std::unexpected(ok.error());
  for (auto name : names)
    if (!attrs.contains(name)) return fail(fmt::format("{}: missing attribute '{}'", located(where), name));
  for (const AttrSpec<T>& spec : ops::attributes<T>(kind))
    if (auto ok = readAttribute(spec, attrs[std::string(spec.name)], out, where); !ok) return std::unexpected(ok.error());
  return out;
}

template <class T>
Result<std::size_t> readNode(GraphBuilder<T>& builder, const json& node) {
  const std::size_t position = builder.graph().positionCount();
  auto numbered = [position] { return fmt::format("node {}", position); };
  if (!node.is_object()) return fail(numbered() + ": must be an object");
  static const std::vector<std::string_view> kKeys{"op", "args", "attrs", "shape"};
  if (auto ok = onlyKeys(node, kKeys, numbered); !ok) return std::unexpected(ok.error());
  auto op = node.find("op");
  if (op == node.end() || !op->is_string()) return fail(numbered() + ": 'op' must be a string");
  const std::string& name = op->get_ref<const std::string&>();
  auto kind = opByName(name);
  if (!kind) return fail(fmt::format("{}: unknown op {}", numbered(), quote(name)));
  auto where = [position, &name] { return describeNode(position, name); };
  std::vector<std::size_t> args;
  if (auto found = node.find("args"); found != node.end()) {
    if (!found->is_array()) return fail(where() + ": 'args' must be an array of positions");
    args.reserve(found->size());
    for (std::size_t i = 0; i < found->size(); ++i) {
      auto p = readCount((*found)[i], nested(where, ": argument {}", i));
      if (!p) return std::unexpected(p.error());
      args.push_back(*p);
    }
  }
  auto attrs = readAttrs<T>(*kind, node, where);
  if (!attrs) return std::unexpected(attrs.error());
  std::optional<Shape> declared;
  if (auto found = node.find("shape"); found != node.end()) {
    auto shape = readShape(*found, nested(where, ": 'shape'"));
    if (!shape) return std::unexpected(shape.error());
    declared = *shape;
  }
  return builder.add(*kind, std::move(args), std::move(*attrs), std::move(declared));
}

template <class T>
Result<void> readData(const json& j, DataSchema& schema, Data<T>& data) {
  if (!j.is_object()) return fail("data: must be an object of named entries");
  for (const auto& [key, entry] : j.items()) {
    std::string where = fmt::format("data {}", quote(key));
    if (!entry.is_object()) return fail(where + ": must be an object");
    if (entry.contains("indices")) {
      if (auto ok = onlyKeys(entry, {"indices"}, where); !ok) return std::unexpected(ok.error());
      if (!entry["indices"].is_array()) return fail(where + ": 'indices' must be an array");
      std::vector<std::size_t> rows;
      for (std::size_t i = 0; i < entry["indices"].size(); ++i) {
        auto r = readCount(entry["indices"][i], fmt::format("{}: index {}", where, i));
        if (!r) return std::unexpected(r.error());
        rows.push_back(*r);
      }
      schema.indices[key] = std::move(rows);
      continue;
    }
    if (auto ok = onlyKeys(entry, {"shape", "values"}, where); !ok) return std::unexpected(ok.error());
    if (!entry.contains("shape") || !entry.contains("values"))
      return fail(where + ": needs 'shape' and 'values' (a tensor) or 'indices' (an index list)");
    auto shape = readShape(entry["shape"], where + ": 'shape'");
    if (!shape) return std::unexpected(shape.error());
    auto values = readTensorValues<T>(entry["values"], *shape, where + ": values");
    if (!values) return std::unexpected(values.error());
    schema.tensors[key] = *shape;
    data[key] = std::move(*values);
  }
  return {};
}

template <class T>
Result<Pack<T>> readSeeds(const json& root, const Graph<T>& graph, std::size_t output) {
  Pack<T> seeds = zeroSeedPack(graph);
  if (root.contains("seeds")) {
    const json& pack = root["seeds"];
    if (!pack.is_object()) return fail("seeds: must be an object from positions to values");
    for (const auto& [key, values] : pack.items()) {
      std::size_t p = 0;
      auto [end, ec] = std::from_chars(key.data(), key.data() + key.size(), p);
      bool canonical = !key.empty() && (key == "0" || key[0] != '0');
      if (ec != std::errc() || end != key.data() + key.size() || !canonical)
        return fail(fmt::format("seeds: key {} is not a position", quote(key)));
      if (p >= graph.positionCount())
        return fail(fmt::format("seeds: position {} is out of range (the graph has {} positions)", p,
                                graph.positionCount()));
      auto tensor = readTensorValues<T>(values, graph.shapeAt(p), fmt::format("seeds '{}'", p));
      if (!tensor) return std::unexpected(tensor.error());
      seeds[p] = std::move(*tensor);
    }
    return seeds;
  }
  if (root.contains("seed")) {
    auto tensor = readTensorValues<T>(root["seed"], graph.shapeAt(output), fmt::format("seed (position {})", output));
    if (!tensor) return std::unexpected(tensor.error());
    seeds[output] = std::move(*tensor);
  } else {
    seeds[output] = Tensor<T>::filled(graph.shapeAt(output), one<T>());
  }
  return seeds;
}

template <class T>
Result<Case<T>> readRoot(const json& root, const CaseGate<T>& gate) {
  if (!root.is_object()) return fail("the document must be a JSON object");
  if (auto ok = onlyKeys(root, {"tapecheck", "description", "inputs", "data", "nodes", "values", "output", "seed",
                                "seeds", "failure"},
                         "document");
      !ok)
    return std::unexpected(ok.error());
  if (!root.contains("tapecheck")) return fail("document: missing \"tapecheck\": 1 (the format version)");
  const json& version = root["tapecheck"];
  if (!version.is_number_integer() || version != 1)
    return fail(fmt::format("document: unsupported format version {} (this tapecheck reads version 1)",
                            version.is_number() ? version.dump() : std::string(version.type_name())));
  if (!root.contains("inputs") || !root["inputs"].is_array()) return fail("inputs: missing or not an array");
  std::vector<Shape> inputs;
  for (std::size_t i = 0; i < root["inputs"].size(); ++i) {
    const json& input = root["inputs"][i];
    std::string where = fmt::format("input {}", i);
    if (!input.is_object() || !input.contains("shape")) return fail(where + ": must be an object with a 'shape'");
    if (auto ok = onlyKeys(input, {"shape"}, where); !ok) return std::unexpected(ok.error());
    auto shape = readShape(input["shape"], where);
    if (!shape) return std::unexpected(shape.error());
    inputs.push_back(*shape);
  }
  Case<T> result;
  DataSchema schema;
  if (root.contains("data"))
    if (auto ok = readData<T>(root["data"], schema, result.data); !ok) return std::unexpected(ok.error());
  auto builder = GraphBuilder<T>::create(std::move(inputs), std::move(schema));
  if (!builder) return std::unexpected(builder.error());
  if (root.contains("nodes")) {
    if (!root["nodes"].is_array()) return fail("nodes: must be an array");
    builder->reserveNodes(root["nodes"].size());  // each already parsed: far smaller than its JSON
    for (const json& node : root["nodes"])
      if (auto added = readNode(*builder, node); !added) return std::unexpected(added.error());
  }
  result.graph = std::move(*builder).build();
  const Graph<T>& graph = result.graph;
  if (graph.positionCount() == 0) return fail("document: the graph has no inputs and no nodes");
  if (root.contains("values")) {
    const json& values = root["values"];
    if (!values.is_array() || values.size() != graph.inputs.size())
      return fail(fmt::format("values: needs one array per input ({}), got {}", graph.inputs.size(),
                              values.is_array() ? std::to_string(values.size()) : std::string(values.type_name())));
    Pack<T> pack;
    for (std::size_t i = 0; i < values.size(); ++i) {
      auto tensor = readTensorValues<T>(values[i], graph.inputs[i], fmt::format("values[{}]", i));
      if (!tensor) return std::unexpected(tensor.error());
      pack.push_back(std::move(*tensor));
    }
    result.inputs = std::move(pack);
  }
  result.output = graph.positionCount() - 1;
  if (root.contains("output")) {
    auto output = readCount(root["output"], "output");
    if (!output) return std::unexpected(output.error());
    if (*output >= graph.positionCount())
      return fail(fmt::format("output: position {} is out of range (the graph has {} positions)", *output,
                              graph.positionCount()));
    result.output = *output;
  }
  if (gate)
    if (auto passed = gate(result); !passed) return std::unexpected(passed.error());
  auto seeds = readSeeds(root, graph, result.output);
  if (!seeds) return std::unexpected(seeds.error());
  result.seeds = std::move(*seeds);
  // Seeds the file gives are values of the case like its inputs (literal_reader reads them): the
  // gate judges the case again with them.
  if (gate && (root.contains("seeds") || root.contains("seed")))
    if (auto passed = gate(result); !passed) return std::unexpected(passed.error());
  if (root.contains("failure")) result.failureJson = root["failure"].dump();
  return result;
}

template <class T>
json tensorToJson(const Tensor<T>& tensor) {
  json values = json::array();
  for (const T& v : tensor.values) values.push_back(Carrier<T>::format(v));
  return json{{"shape", tensor.shape}, {"values", std::move(values)}};
}

template <class T>
json valuesToJson(const std::vector<T>& values) {
  json out = json::array();
  for (const T& v : values) out.push_back(Carrier<T>::format(v));
  return out;
}

//! One attribute's field as JSON: exact value text, a count, a shape, a value list, the key or
//! the opaque entry's name.
template <class T>
json attributeToJson(const AttrSpec<T>& spec, const Attrs<T>& attrs) {
  return std::visit(
      [&](auto field) -> json {
        const auto& slot = attrs.*field;
        using Slot = std::remove_cvref_t<decltype(slot)>;
        if constexpr (std::is_same_v<Slot, std::optional<T>>) return Carrier<T>::format(*slot);
        else if constexpr (std::is_same_v<Slot, std::vector<T>>) return valuesToJson(slot);
        else if constexpr (std::is_same_v<Slot, const OpaqueDef<T>*>) return slot->name;
        else return slot;
      },
      spec.field);
}

template <class T>
json nodeToJson(const Node<T>& node) {
  json out{{"op", std::string(opName(node.op))}, {"args", node.args}};
  json attrs = json::object();
  for (const AttrSpec<T>& spec : ops::attributes<T>(node.op)) attrs[std::string(spec.name)] = attributeToJson(spec, node.attrs);
  if (!attrs.empty()) out["attrs"] = std::move(attrs);
  out["shape"] = node.shape;
  return out;
}

}  // namespace io_detail

template <class T>
Result<Case<T>> parseCase(std::string_view text, const CaseGate<T>& gate) {
  auto root = parseJsonDocument(text);
  if (!root) return std::unexpected(root.error());
  return caseFromJson<T>(*root, gate);
}

template <class T>
Result<Case<T>> parseCase(std::string_view text) {
  return parseCase<T>(text, CaseGate<T>{});
}

template <class T>
Result<Case<T>> caseFromJson(const nlohmann::json& document, const CaseGate<T>& gate) {
  try {
    return io_detail::readRoot<T>(document, gate);
  } catch (const nlohmann::json::exception& e) {  // a safety net: every access is checked first
    return fail(fmt::format("malformed document: {}", e.what()));
  }
}

template <class T>
Result<Case<T>> caseFromJson(const nlohmann::json& document) {
  return caseFromJson<T>(document, CaseGate<T>{});
}

template <class T>
Result<Tensor<T>> valuesFromJson(const nlohmann::json& values, const Shape& shape, const std::string& where) {
  return io_detail::readTensorValues<T>(values, shape, where);
}

template <class T>
Result<std::size_t> appendNode(GraphBuilder<T>& builder, const nlohmann::json& node) {
  return io_detail::readNode(builder, node);
}

template <class T>
Result<Case<T>> readCaseFile(const std::filesystem::path& path, const CaseGate<T>& gate) {
  auto text = readTextFile(path);
  if (!text) return std::unexpected(text.error());
  return within(path.string(), parseCase<T>(*text, gate));
}

template <class T>
Result<Case<T>> readCaseFile(const std::filesystem::path& path) {
  return readCaseFile<T>(path, CaseGate<T>{});
}

template <class T>
nlohmann::json packToJson(const Pack<T>& pack) {
  nlohmann::json out = nlohmann::json::array();
  for (const Tensor<T>& t : pack) out.push_back(io_detail::tensorToJson(t));
  return out;
}

template <class T>
std::string writeCase(const Case<T>& c) {
  return formatCaseDocument(caseToJson(c));
}

template <class T>
nlohmann::json caseToJson(const Case<T>& c) {
  using nlohmann::json;
  const Graph<T>& graph = c.graph;
  json root = json::object();
  root["tapecheck"] = 1;
  json inputs = json::array();
  for (const Shape& s : graph.inputs) inputs.push_back(json{{"shape", s}});
  root["inputs"] = std::move(inputs);
  json data = json::object();
  for (const auto& [key, tensor] : c.data) data[key] = io_detail::tensorToJson(tensor);
  for (const auto& [key, rows] : graph.schema.indices) data[key] = json{{"indices", rows}};
  if (!data.empty()) root["data"] = std::move(data);
  json nodes = json::array();
  for (const Node<T>& node : graph.nodes) nodes.push_back(io_detail::nodeToJson(node));
  root["nodes"] = std::move(nodes);
  if (c.inputs) {
    json values = json::array();
    for (const Tensor<T>& t : *c.inputs) values.push_back(io_detail::valuesToJson(t.values));
    root["values"] = std::move(values);
  }
  root["output"] = c.output;
  json seeds = json::object();
  for (std::size_t p = 0; p < c.seeds.size(); ++p) {
    bool allZero = true;
    for (const T& v : c.seeds[p].values) allZero = allZero && Carrier<T>::same(v, zero<T>());
    if (!allZero) seeds[std::to_string(p)] = io_detail::valuesToJson(c.seeds[p].values);
  }
  root["seeds"] = std::move(seeds);
  if (!c.failureJson.empty()) root["failure"] = json::parse(c.failureJson);
  return root;
}

}  // namespace tc

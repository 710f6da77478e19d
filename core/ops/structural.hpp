#pragma once
// Ops that move values (reshape, broadcast, concat0, slice0, const, detach) and ops that read
// the data Δ (mask, gather0), plus the opaque op.
#include "core/support/mutants.h"
#include "core/ops/opaque.h"
#include "core/ops/reductions.hpp"

namespace tc::ops {

struct Reshape : UnaryBase {
  static constexpr std::string_view family = "structural";
  static constexpr std::string_view label = "reshape";
  static constexpr std::size_t termRoundings = 0;  // copies of ct
  static constexpr double accuracyUlps = 0;  // copies: exact
  static constexpr Signature signature = Signature::reshape;
  template <class T>
  static constexpr std::array<AttrSpec<T>, 1> attributes{{{"shape", &Attrs<T>::shape}}};
  static constexpr Requirement needs = Requirement::ring;
  template <class T>
  static Result<Shape> shape(const ShapeCall<T>& c) {
    auto size = checkShape(c.attrs.shape);
    if (!size) return std::unexpected(size.error());
    if (*size != elementCount(c.arg(0)))
      return fail(fmt::format("cannot reshape {} ({} elements) to {} ({} elements)", formatShape(c.arg(0)),
                              elementCount(c.arg(0)), formatShape(c.attrs.shape), *size));
    return c.attrs.shape;
  }
  template <class T>
  static Tensor<T> forward(const OpCall<T>& c) { return Tensor<T>(c.shape, c.arg(0).values); }
  template <class T>
  static void terms(const OpCall<T>& c, const Tensor<T>&, const Tensor<T>& ct, Terms<T>& out) {
    out.push_back({0, Tensor<T>(c.arg(0).shape, ct.values)});
  }
};

struct Broadcast : UnaryBase {
  static constexpr std::string_view family = "structural";
  static constexpr std::string_view label = "broadcast";
  //! Each element's term sums its copies' cotangents: one rounding fewer than copies.
  static constexpr bool termsSum = true;
  template <class T>
  static std::size_t termRoundingsAt(const OpCall<T>& c, std::size_t) {
    const std::size_t copies = elementCount(c.shape) / std::max<std::size_t>(c.arg(0).size(), 1);
    return copies > 0 ? copies - 1 : 0;
  }
  static constexpr double accuracyUlps = 0;  // copies: exact
  static constexpr Signature signature = Signature::broadcast;
  template <class T>
  static constexpr std::array<AttrSpec<T>, 1> attributes{{{"shape", &Attrs<T>::shape}}};
  static constexpr Requirement needs = Requirement::ring;
  template <class T>
  static Result<Shape> shape(const ShapeCall<T>& c) {
    auto size = checkShape(c.attrs.shape);
    if (!size) return std::unexpected(size.error());
    const Shape& x = c.arg(0);
    const Shape& target = c.attrs.shape;
    bool suffix = x.size() <= target.size() && std::equal(x.begin(), x.end(), target.end() - static_cast<std::ptrdiff_t>(x.size()));
    if (!suffix)
      return fail(fmt::format("shape {} is not a suffix of {}", formatShape(x), formatShape(target)));
    return target;
  }
  template <class T>
  static Tensor<T> forward(const OpCall<T>& c) {
    const Tensor<T>& x = c.arg(0);
    Tensor<T> out = zeros<T>(c.shape);
    for (std::size_t i = 0; i < out.size(); ++i) out[i] = x[i % x.size()];
    return out;
  }
  // ct summed over the leading dimensions, copies in increasing order.
  template <class T>
  static void terms(const OpCall<T>& c, const Tensor<T>&, const Tensor<T>& ct, Terms<T>& out) {
    Tensor<T> g = zeros<T>(c.arg(0).shape);
    std::size_t copies = TC_MUTANT(broadcast_missing_reduction) ? g.size() : ct.size();  // the fault keeps only the first copy
    for (std::size_t i = 0; i < copies; ++i) g[i % g.size()] = g[i % g.size()] + ct[i];
    out.push_back({0, std::move(g)});
  }
};

struct Concat0 : OpBase {
  static constexpr std::string_view family = "structural";
  static constexpr std::string_view label = "concat0";
  static constexpr std::size_t termRoundings = 0;  // copies of ct
  static constexpr double accuracyUlps = 0;  // copies: exact
  static constexpr Signature signature = Signature::concat;
  static constexpr std::size_t arity = 2;
  static constexpr Requirement needs = Requirement::ring;
  template <class T>
  static Result<Shape> shape(const ShapeCall<T>& c) {
    const Shape& a = c.arg(0);
    const Shape& b = c.arg(1);
    if (a.empty() || a.size() != b.size() || !std::equal(a.begin() + 1, a.end(), b.begin() + 1))
      return fail(fmt::format("needs [m, ...] and [n, ...] with equal trailing dimensions, got {} and {}",
                              formatShape(a), formatShape(b)));
    Shape out = a;
    out[0] = a[0] + b[0] + (TC_MUTANT(concat0_shape_extra_row) && a[0] == 2 ? 1 : 0);  // the fault: a row too many
    auto size = checkShape(out);
    if (!size) return std::unexpected(size.error());
    return out;
  }
  template <class T>
  static Tensor<T> forward(const OpCall<T>& c) {
    std::vector<T> values = c.arg(0).values;
    values.insert(values.end(), c.arg(1).values.begin(), c.arg(1).values.end());
    return Tensor<T>(c.shape, std::move(values));
  }
  template <class T>
  static void terms(const OpCall<T>& c, const Tensor<T>&, const Tensor<T>& ct, Terms<T>& out) {
    auto split = ct.values.begin() + static_cast<std::ptrdiff_t>(c.arg(0).size());
    out.push_back({0, Tensor<T>(c.arg(0).shape, std::vector<T>(ct.values.begin(), split))});
    auto second = TC_MUTANT(concat0_second_term_offset) ? ct.values.begin() : split;  // the fault forgets the offset
    out.push_back({1, Tensor<T>(c.arg(1).shape, std::vector<T>(second, second + static_cast<std::ptrdiff_t>(c.arg(1).size())))});
  }
};

struct Slice0 : UnaryBase {
  static constexpr std::string_view family = "structural";
  static constexpr std::string_view label = "slice0";
  static constexpr std::size_t termRoundings = 0;  // copies of ct
  static constexpr double accuracyUlps = 0;  // copies: exact
  static constexpr Signature signature = Signature::leadingAxis;
  template <class T>
  static constexpr std::array<AttrSpec<T>, 2> attributes{{{"start", &Attrs<T>::start}, {"len", &Attrs<T>::len}}};
  static constexpr Requirement needs = Requirement::ring;
  template <class T>
  static Result<Shape> shape(const ShapeCall<T>& c) {
    const Shape& x = c.arg(0);
    std::size_t start = c.attrs.start, len = c.attrs.len;
    if (x.empty()) return fail("needs at least one axis, got a scalar");
    if (len == 0) return fail("len is 0; a slice takes at least one row");
    if (start >= x[0] || len > x[0] - start)
      return fail(fmt::format("rows [{}, {}+{}) are out of range for {} rows", start, start, len, x[0]));
    Shape out = x;
    out[0] = len;
    return out;
  }
  template <class T>
  static Tensor<T> forward(const OpCall<T>& c) {
    std::size_t row = innerSize(c.arg(0).shape, 1);
    auto first = c.arg(0).values.begin() + static_cast<std::ptrdiff_t>(c.attrs.start * row);
    return Tensor<T>(c.shape, std::vector<T>(first, first + static_cast<std::ptrdiff_t>(c.attrs.len * row)));
  }
  template <class T>
  static void terms(const OpCall<T>& c, const Tensor<T>&, const Tensor<T>& ct, Terms<T>& out) {
    Tensor<T> g = zeros<T>(c.arg(0).shape);
    std::size_t start = c.attrs.start;
    if (TC_MUTANT(slice0_off_by_one)) start = start + c.attrs.len < g.shape[0] ? start + 1 : (start > 0 ? start - 1 : start);  // one row off
    std::size_t offset = start * innerSize(g.shape, 1);
    for (std::size_t i = 0; i < ct.size(); ++i) g[offset + i] = ct[i];
    out.push_back({0, std::move(g)});
  }
};

struct Constant : OpBase {
  static constexpr std::string_view family = "structural";
  static constexpr std::string_view label = "const";
  static constexpr double accuracyUlps = 0;  // copies: exact
  static constexpr Signature signature = Signature::none;
  static constexpr bool hasTerms = false;
  //! Listings show a const's shape and values in their own columns.
  template <class T>
  static constexpr std::array<AttrSpec<T>, 2> attributes{
      {{"shape", &Attrs<T>::shape, false}, {"values", &Attrs<T>::values, false}}};
  static constexpr std::size_t arity = 0;
  static constexpr Requirement needs = Requirement::ring;
  template <class T>
  static Result<Shape> shape(const ShapeCall<T>& c) {
    auto size = checkShape(c.attrs.shape);
    if (!size) return std::unexpected(size.error());
    if (*size != c.attrs.values.size())
      return fail(fmt::format("shape {} needs {} values, got {}", formatShape(c.attrs.shape), *size,
                              c.attrs.values.size()));
    return c.attrs.shape;
  }
  template <class T>
  static Tensor<T> forward(const OpCall<T>& c) { return Tensor<T>(c.attrs.shape, c.attrs.values); }
  template <class T>
  static void terms(const OpCall<T>&, const Tensor<T>&, const Tensor<T>&, Terms<T>&) {}
};

struct Detach : PointwiseUnary<Detach> {
  static constexpr std::string_view family = "structural";
  static constexpr std::string_view label = "detach";
  static constexpr double accuracyUlps = 0;  // copies: exact
  static constexpr bool hasTerms = false;
  static constexpr Requirement needs = Requirement::ring;
  template <class T>
  static T apply(const T& x) { return Carrier<T>::detach(x); }
  template <class T>
  static void terms(const OpCall<T>&, const Tensor<T>&, const Tensor<T>&, Terms<T>&) {}
};

struct Mask : UnaryBase, ScaledDegree {
  static constexpr std::string_view family = "structural";
  using ScaledDegree::degree;
  static constexpr std::string_view label = "mask";
  //! A key of the data schema's tensors.
  template <class T>
  static constexpr std::array<AttrSpec<T>, 1> attributes{{{"key", &Attrs<T>::key}}};
  static constexpr Requirement needs = Requirement::ring;
  template <class T>
  static Result<Shape> shape(const ShapeCall<T>& c) {
    auto entry = c.schema.tensors.find(c.attrs.key);
    if (entry == c.schema.tensors.end()) return fail(fmt::format("data has no tensor {}", quote(c.attrs.key)));
    if (entry->second != c.arg(0))
      return fail(fmt::format("data tensor {} has shape {}, argument has shape {}", quote(c.attrs.key),
                              formatShape(entry->second), formatShape(c.arg(0))));
    return c.arg(0);
  }
  template <class T>
  static const Tensor<T>& maskOf(const OpCall<T>& c) { return c.data.at(c.attrs.key); }
  template <class T>
  static Tensor<T> forward(const OpCall<T>& c) {
    return zip(c.arg(0), maskOf(c), [](const T& x, const T& m) { return x * m; });
  }
  template <class T>
  static void terms(const OpCall<T>& c, const Tensor<T>&, const Tensor<T>& ct, Terms<T>& out) {
    out.push_back({0, zip(ct, maskOf(c), [](const T& g, const T& m) { return g * m; })});
  }
};

struct Gather0 : UnaryBase {
  static constexpr std::string_view family = "structural";
  static constexpr std::string_view label = "gather0";
  //! A row gathered r times sums r cotangent rows: at most one rounding fewer than the list's length.
  static constexpr bool termsSum = true;
  template <class T>
  static std::size_t termRoundingsAt(const OpCall<T>& c, std::size_t) { return rowsOf(c).size() - 1; }
  static constexpr double accuracyUlps = 0;  // copies: exact
  static constexpr Signature signature = Signature::leadingAxis;
  //! A key of the data schema's index lists.
  template <class T>
  static constexpr std::array<AttrSpec<T>, 1> attributes{{{"key", &Attrs<T>::key}}};
  static constexpr Requirement needs = Requirement::ring;
  template <class T>
  static Result<Shape> shape(const ShapeCall<T>& c) {
    auto entry = c.schema.indices.find(c.attrs.key);
    if (entry == c.schema.indices.end()) return fail(fmt::format("data has no index list {}", quote(c.attrs.key)));
    const Shape& x = c.arg(0);
    if (x.empty()) return fail("needs at least one axis, got a scalar");
    const auto& rows = entry->second;
    if (rows.empty()) return fail(fmt::format("index list {} is empty", quote(c.attrs.key)));
    for (std::size_t j = 0; j < rows.size(); ++j)
      if (TC_MUTANT(index_bound_off_by_one) ? rows[j] > x[0] : rows[j] >= x[0])
        return fail(fmt::format("index {} of {} is {}, out of range for {} rows", j, quote(c.attrs.key), rows[j], x[0]));
    if (rows.size() > kMaxElements)
      return fail(fmt::format("index list {} has more than {} rows", quote(c.attrs.key), kMaxElements));
    Shape out = x;
    out[0] = static_cast<Shape::Dim>(rows.size());
    auto size = checkShape(out);
    if (!size) return std::unexpected(size.error());
    return out;
  }
  template <class T>
  static const std::vector<std::size_t>& rowsOf(const OpCall<T>& c) { return c.schema.indices.at(c.attrs.key); }
  template <class T>
  static Tensor<T> forward(const OpCall<T>& c) {
    const Tensor<T>& x = c.arg(0);
    std::size_t row = innerSize(x.shape, 1);
    std::vector<T> values;
    values.reserve(c.shape[0] * row);
    for (std::size_t r : rowsOf(c))
      values.insert(values.end(), x.values.begin() + static_cast<std::ptrdiff_t>(r * row),
                    x.values.begin() + static_cast<std::ptrdiff_t>((r + 1) * row));
    return Tensor<T>(c.shape, std::move(values));
  }
  // Rows of ct scatter-added into x's shape in index-list order.
  template <class T>
  static void terms(const OpCall<T>& c, const Tensor<T>&, const Tensor<T>& ct, Terms<T>& out) {
    Tensor<T> g = zeros<T>(c.arg(0).shape);
    std::size_t row = innerSize(g.shape, 1);
    const auto& rows = rowsOf(c);
    for (std::size_t j = 0; j < rows.size(); ++j) {
      std::size_t r = TC_MUTANT(gather0_scatter_order) ? rows[rows.size() - 1 - j] : rows[j];  // the fault reads the list backwards
      for (std::size_t i = 0; i < row; ++i) g[r * row + i] = g[r * row + i] + ct[j * row + i];
    }
    out.push_back({0, std::move(g)});
  }
};

//! The op kind for registered opaque programs; arity, requirement, shape, forward and the dense
//! program come from the entry named by attribute `name`.
struct Opaque : OpBase {
  static constexpr std::string_view family = "opaque";
  static constexpr std::string_view label = "opaque";
  static constexpr Requirement needs = Requirement::ring;
  static constexpr Signature signature = Signature::any;
  static constexpr bool dense = true;
  //! The name is part of the node's label ("opaque twice"), so listings do not repeat it.
  template <class T>
  static constexpr std::array<AttrSpec<T>, 1> attributes{{{"name", &Attrs<T>::opaque, false}}};
  template <class T>
  static Requirement requirement(const Attrs<T>& attrs) { return attrs.opaque->needs; }
  template <class T>
  static std::size_t arityOf(const Attrs<T>& attrs) { return attrs.opaque->arity; }
  template <class T>
  static std::string nodeLabel(const Attrs<T>& attrs) { return "opaque " + attrs.opaque->name; }
  template <class T>
  static bool linearInCotangent(const Attrs<T>& attrs) { return attrs.opaque->linearInCotangent; }
  template <class T>
  static std::string description(const Attrs<T>& attrs) { return attrs.opaque->description; }
  template <class T>
  static Result<Shape> shape(const ShapeCall<T>& c) {
    return c.attrs.opaque->shape(c.args);
  }
  template <class T>
  static Tensor<T> forward(const OpCall<T>& c) { return c.attrs.opaque->forward(c.args); }
  template <class T>
  static void terms(const OpCall<T>&, const Tensor<T>&, const Tensor<T>&, Terms<T>&) {
    assert(false && "opaque nodes have a dense program, not terms");
  }
};

}  // namespace tc::ops

#pragma once
// Random well-typed cases. A case is a document in the file format (docs/file-format.md), so
// what is generated, shrunk, saved and replayed is one representation.
#include <nlohmann/json.hpp>

#include <cstdint>
#include <optional>
#include <string_view>
#include <vector>

#include "core/io/case_file.h"
#include "core/ops/op_kind.h"

namespace tc::gen {

//! Which cases are generated (docs/semantics.md §1.12, §3.4). `general`: every value the carrier
//! has (on IEEE carriers ±0, ±inf, NaN, subnormals too) and every op it supports. `exact`: on
//! IEEE carriers only small dyadic values and the ops of the exact domain, and every case proven
//! by spec::checkExactDomain to give the same bits in every evaluation order (a case that is not
//! is drawn again); on exact carriers the same as `general`.
enum class Domain { general, exact };

inline std::string_view domainName(Domain domain) { return domain == Domain::general ? "default" : "exact"; }

//! The domain named `name` ("default" or "exact"), or nullopt.
inline std::optional<Domain> parseDomain(std::string_view name) {
  if (name == "default") return Domain::general;
  if (name == "exact") return Domain::exact;
  return std::nullopt;
}

//! Where withRandomValues draws values from. `pooled`: the domain's pools. `spread`: the inputs from
//! the 2,046 nonzero multiples of 1/256 below 4 in magnitude, among which a zero or a tie is rare
//! (for a property that compares only away from kinks), the seeds pooled. `powersOfTwo` and `units`:
//! inputs and seeds from {0, ±1/2, ±1, ±2} or {0, ±1}, whose products and sums stay exact through
//! deeper graphs than the exact domain's pool (in either domain).
enum class Values { pooled, spread, powersOfTwo, units };

//! What generated cases may contain. `ops`, when given, restricts the ops drawn to those listed
//! (OpKind::opaque: the registered opaque programs): an engine's profile passes the ops it
//! supports. `avoidKinks` draws again a case whose values sit at a kink of some node (for an
//! engine whose profile does not declare its kink conventions). `signedZeros` puts −0 as well as +0
//! at the kinks at zero in the exact domain too, which otherwise draws +0 only (a −0 summand makes the
//! sign of a fold's zero depend on whether the engine starts from +0, §1.12): for a property that
//! compares each node on the engine's own arguments and leaves the folds' signs of zero alone
//! (forward_oracle), where relu(−0) = +0 and max/min of zeros are then compared.
struct CaseOptions {
  std::optional<std::vector<OpKind>> ops;
  Domain domain = Domain::general;
  bool avoidKinks = false;
  bool signedZeros = false;
};

//! Whether a loaded case meets what `options` demand beyond its ops: proven exact in every
//! evaluation order in the exact domain (IEEE carriers), clear of every kink when asked. A case
//! whose shapes are not the op table's (shapeDisagreement) meets them: it cannot be evaluated, and
//! a run fails it for its shapes alone.
template <class T>
bool meetsOptions(const Case<T>& c, const CaseOptions& options);

//! A random case document that loads on carrier T: a well-typed graph, input values, data, an
//! output and seeds, using only the ops `options` allow. `size` (0..100) scales the number of
//! nodes. Deterministic in `seed`. Should an op's rules refuse a node that the generator's recipe
//! for its arguments built (the generator or the op is wrong), the document ends with that node
//! and does not load: runs fail it rather than stop.
template <class T>
nlohmann::json randomCase(std::uint64_t seed, int size, const CaseOptions& options = {});

//! A generated document with the case it loads as: what a run checks, loaded once from the
//! document in memory (the file format's own round trip is the file_round_trip property's).
template <class T>
struct GeneratedCase {
  nlohmann::json doc;
  Result<Case<T>> loaded;
};

//! randomCase's document (the same for the same arguments) and its case.
template <class T>
GeneratedCase<T> generateCase(std::uint64_t seed, int size, const CaseOptions& options = {});

//! The same graph, data and output with fresh input values and seeds, drawn as for a generated
//! case in `domain` (in the exact domain: small dyadic values; the graph's ops are what they are,
//! so the draw is not checked for exactness). On an IEEE carrier kFiniteDrawPercent of the draws
//! leave out NaN and the infinities. `values` may draw from elsewhere (Values). The values go
//! straight into tensors: a large graph is not written out and read again for every draw.
template <class T>
Case<T> withRandomValues(const Case<T>& c, std::uint64_t seed, Domain domain = Domain::general,
                         Values values = Values::pooled);

}  // namespace tc::gen

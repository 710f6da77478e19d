#pragma once
// Mutation switches: small deliberate faults at real code sites, to show that the properties
// catch them (`tapecheck mutants`). They exist only when CMake is configured with
// -DTAPECHECK_MUTANTS=ON; otherwise TC_MUTANT(id) is the constant false and the optimiser removes
// every mutated branch, so a normal build contains no trace of them. In a mutant build at most one
// mutant is active: the one whose id is in the environment variable TAPECHECK_MUTANT.
#ifdef TAPECHECK_MUTANTS
#include <span>
#include <string_view>

namespace tc::mutants {

//! One documented mutant: what it breaks, where, and which kind of fault it models.
struct MutantInfo {
  int id;
  std::string_view name, category, site, models;
};

//! Every mutant, by id.
std::span<const MutantInfo> all();

//! Whether mutant `id` is the active one (read once from TAPECHECK_MUTANT).
bool active(int id);

}  // namespace tc::mutants

#define TC_MUTANT(id) (::tc::mutants::active(id))
#else
#define TC_MUTANT(id) false
#endif

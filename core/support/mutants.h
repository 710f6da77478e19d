#pragma once
// Mutation switches: small deliberate faults at real code sites, to show that the properties
// catch them (`tapecheck mutants`). A site says `TC_MUTANT(name)` with a name from
// core/support/mutant_list.h, so a misspelt or removed mutant fails to compile in every build. The
// switches exist only when CMake is configured with -DTAPECHECK_MUTANTS=ON; otherwise
// TC_MUTANT(name) is the constant false and the optimiser removes every mutated branch, so a normal
// build contains no trace of them. In a mutant build at most one mutant is active: the one named by
// the environment variable TAPECHECK_MUTANT (its id, or its name with hyphens).
#include "core/support/mutant_list.h"

namespace tc::mutants {

//! Every mutant's name; its value is its id (1, 2, ... in the list's order). `none` is no mutant.
enum class Mutant : int {
  none = 0,
#define TC_MUTANT_ENUMERATOR(name, category, site, models) name,
  TC_MUTANT_LIST(TC_MUTANT_ENUMERATOR)
#undef TC_MUTANT_ENUMERATOR
};

}  // namespace tc::mutants

#ifdef TAPECHECK_MUTANTS
#include <optional>
#include <span>
#include <string_view>

namespace tc::mutants {

//! One documented mutant: what it breaks, where, and which kind of fault it models.
struct MutantInfo {
  int id;
  std::string_view name, category, site, models;  //!< name: the list's name with hyphens
};

//! Every mutant, by id.
std::span<const MutantInfo> all();

//! The mutant a command line or TAPECHECK_MUTANT names: an id ("15") or a name
//! ("dense-pass-overwrite"); nothing when it names none.
std::optional<int> idOf(std::string_view text);

//! Whether `mutant` is the active one (read once from TAPECHECK_MUTANT).
bool active(Mutant mutant);

}  // namespace tc::mutants

#define TC_MUTANT(name) (::tc::mutants::active(::tc::mutants::Mutant::name))
#else
#define TC_MUTANT(name) (static_cast<void>(::tc::mutants::Mutant::name), false)
#endif

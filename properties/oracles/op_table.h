#pragma once
// The second statements of op semantics that oracles compare engines with (the kink table, the
// domain table) are arrays of rows keyed by op name.
#include <string_view>

namespace tc::props {

//! The row of `table` whose `op` is `name`, or nullptr.
template <class Table>
auto rowNamed(const Table& table, std::string_view name) -> decltype(&*std::begin(table)) {
  for (const auto& row : table)
    if (row.op == name) return &row;
  return nullptr;
}

}  // namespace tc::props

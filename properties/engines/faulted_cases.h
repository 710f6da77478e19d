#pragma once
// The cases an engine faulted on in a run, shrunk: where later rows start shrinking their own.
#include <nlohmann/json.hpp>

#include <algorithm>
#include <cstddef>
#include <mutex>
#include <vector>

namespace tc::props {

//! The shrunk cases on which an engine gave no result (crashed, hung or threw: EngineFault) in the
//! earlier rows of a run, newest first, as documents, so the rows of every carrier can read them.
//! A row whose case faults tries these first: a hang is then shrunk once, not once per row, which
//! matters because every step of shrinking a hang waits out a timeout. Rows may share one from
//! several threads.
class FaultedCases {
 public:
  //! How many are kept: an engine faults on few distinct things, and each is tried at a cost.
  static constexpr std::size_t kKept = 4;

  //! `doc`, first in line; a document already kept moves to the front.
  void remember(const nlohmann::json& doc) {
    std::scoped_lock lock(mutex_);
    std::erase(docs_, doc);
    docs_.insert(docs_.begin(), doc);
    if (docs_.size() > kKept) docs_.pop_back();
  }

  //! The documents, the most recently remembered first.
  std::vector<nlohmann::json> newestFirst() const {
    std::scoped_lock lock(mutex_);
    return docs_;
  }

 private:
  mutable std::mutex mutex_;
  std::vector<nlohmann::json> docs_;
};

}  // namespace tc::props

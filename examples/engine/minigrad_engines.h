#pragma once
// minigrad as tapecheck's command line and its GoogleTest macro know it: two named engines, each on
// every carrier minigrad runs on (main.cpp's TAPECHECK_MAIN and minigrad_test.cpp's TAPECHECK_GTEST
// check the same two):
//   minigrad       correct
//   minigrad-bug   the classic mistake: a gradient assigned instead of accumulated
#include "cli/named_engine.h"
#include "core/carriers/rational.h"
#include "minigrad.h"

namespace minigrad {

//! The engines on each carrier; they live as long as the program, as tapecheck needs.
template <class T>
inline const Engine<T> correct(false);
template <class T>
inline const Engine<T> withBug(true);

//! "minigrad" (or, with `bug`, "minigrad-bug") on rational, modp, double and float.
inline tc::cli::NamedEngine named(bool bug) {
  if (bug)
    return tc::cli::namedEngine("minigrad-bug", withBug<tc::Rational>, withBug<tc::ModP>, withBug<double>,
                                withBug<float>);
  return tc::cli::namedEngine("minigrad", correct<tc::Rational>, correct<tc::ModP>, correct<double>, correct<float>);
}

}  // namespace minigrad

// What checking ADOL-C 2.7.2 (Debian libadolc-dev 2.7.2-6) found, each reproduced with ADOL-C alone, in
// the few lines anyone can run: these tests pass while ADOL-C behaves so, and fail once a new version
// changes it (then the adapter's profile and these notes need a look: adapters/adolc/adolc_engine.cpp).
#include <adolc/adolc.h>
#include <gtest/gtest.h>

#include <cmath>
#include <limits>

namespace {

// The value and the derivative of f at x, recorded on a tape and differentiated by fos_reverse.
template <class F>
std::pair<double, double> valueAndDerivative(F f, double x) {
  constexpr short tag = 1;
  double y = 0;
  trace_on(tag);
  adouble ax;
  ax <<= x;
  adouble ay = f(ax);
  ay >>= y;
  trace_off();
  double weight = 1, derivative = 0, replayed = 0;
  zos_forward(tag, 1, 1, 1, &x, &replayed);
  fos_reverse(tag, 1, 1, &weight, &derivative);
  removeTape(tag, ADOLC_REMOVE_COMPLETELY);
  return {y, derivative};
}

// ADOL-C's tanh cancels near 0: the exact tanh(x) is x·(1 − x²/3 + ...), but ADOL-C gives tanh(1e-10)
// a relative error of 8.3e-8 (6.4e8 ulp; glibc's tanh: 0 ulp), tanh(1e-5) 706 ulp, and 0 for every
// |x| below about 1e-16 (tapecheck's budget for tanh is 10 ulp). An accuracy finding; the profile
// leaves tanh out.
TEST(AdolcFindings, TanhLosesItsRelativeAccuracyNearZero) {
  auto tanhOf = [](adouble& x) -> adouble { return tanh(x); };
  EXPECT_EQ(valueAndDerivative(tanhOf, 1e-20).first, 0.0);
  EXPECT_EQ(valueAndDerivative(tanhOf, -1e-310).first, 0.0);
  const double y = valueAndDerivative(tanhOf, 1e-10).first;
  EXPECT_GT(std::fabs(y - std::tanh(1e-10)) / std::tanh(1e-10), 1e-8);
  EXPECT_EQ(valueAndDerivative(tanhOf, 0.5).first, std::tanh(0.5));  // fine away from 0
}

// ADOL-C's sqrt has the derivative 0 at 0, where 1/(2·sqrt(x)) is +inf. Outside what the engine
// verdict judges (no budget bounds an infinite term), shown by the survey's "∂sqrt: other".
TEST(AdolcFindings, SqrtHasDerivativeZeroAtZero) {
  auto sqrtOf = [](adouble& x) -> adouble { return sqrt(x); };
  EXPECT_EQ(valueAndDerivative(sqrtOf, 0.0), (std::pair<double, double>{0.0, 0.0}));
  EXPECT_EQ(valueAndDerivative(sqrtOf, 0.25), (std::pair<double, double>{0.5, 1.0}));
}

// fmin(a, b) is b < a ? b : a, so with a NaN argument it is not symmetric: fmin(NaN, 1) = NaN but
// fmin(1, NaN) = 1 (C's fmin gives 1 for both), and in both orders the reverse sweep splits the adjoint
// as at a tie, so fmin(1, NaN), which is its first argument, has the derivative 1/2 in it. The adapter
// puts a NaN argument first.
TEST(AdolcFindings, FminOfANumberAndNaNKeepsTheNumberButHalfItsDerivative) {
  const double nan = std::numeric_limits<double>::quiet_NaN();
  auto fminWithNaN = [nan](adouble& x) -> adouble { return fmin(x, adouble(nan)); };
  auto [value, derivative] = valueAndDerivative(fminWithNaN, 1.0);
  EXPECT_EQ(value, 1.0);
  EXPECT_EQ(derivative, 0.5);
  auto nanFirst = [nan](adouble& x) -> adouble { return fmin(adouble(nan), x); };
  EXPECT_TRUE(std::isnan(valueAndDerivative(nanFirst, 1.0).first));
}

}  // namespace

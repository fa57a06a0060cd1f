#pragma once
// Image-quality figures used by the tests and the demo (spec/solver.md §7.4).

#include <vector>

namespace mbir {

// ||x - reference|| / ||reference||
double
nrmse(const std::vector<float> & x, const std::vector<float> & reference);
// max |x - reference|
double
maxAbsDifference(const std::vector<float> & x, const std::vector<float> & reference);
// 95th percentile of |x - reference| (linear interpolation, as NumPy)
double
percentile95AbsDifference(const std::vector<float> & x, const std::vector<float> & reference);

} // namespace mbir

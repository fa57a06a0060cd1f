#pragma once
// Sinogram weights, proportional to the inverse noise variance of each entry (spec/solver.md §1.2).

#include <cstddef>
#include <string>
#include <vector>

namespace mbir {

enum class WeightType
{
  Unweighted,       // W = 1
  Transmission,     // W = exp(-y)
  TransmissionRoot, // W = exp(-y / 2)
  Emission          // W = 1 / (|y| + 0.1)
};

// "unweighted", "transmission", "transmission_root" or "emission"; std::invalid_argument otherwise.
WeightType
parseWeightType(const std::string & name);

std::vector<float>
generateWeights(const float * sinogram, std::size_t n, WeightType type);

} // namespace mbir

#pragma once
// Random equal-size subsets of the ROR pixels for multi-granular VCD (spec/solver.md §3.2).

#include <cstdint>
#include <random>
#include <vector>

namespace mbir {

// `numSubsets` subsets of equal size ceil(N / numSubsets), each sorted; the few extra entries needed to
// equalise the sizes repeat pixels from the other subsets. numSubsets is capped at the pixel count.
std::vector<std::vector<int>>
randomPartition(const std::vector<int> & pixels, int numSubsets, std::mt19937_64 & random);

// The partition index of each iteration: the sequence truncated, or padded with its last entry.
std::vector<int>
partitionSchedule(const std::vector<int> & sequence, int maxIterations);

} // namespace mbir

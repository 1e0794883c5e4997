// Egaroucid's web engine is written for wasm, where uint64_t is unsigned long long: its max(1ULL, t) needs this on
// x86-64, and its level table needs <algorithm> (std::clamp) included before it.
#include <algorithm>
#include <cstdint>

inline uint64_t max(unsigned long long a, uint64_t b) { return a > b ? a : b; }

// Counting CPU allocations: the bytes c10's CPU allocator has handed out
// and not taken back, and their peak, which the memory oracles
// (oracles/resource_checks.h) read around one call of an op.
//
// Installed once per process in front of whatever CPU allocator c10 has
// (c10::SetCPUAllocator, at the highest priority), it forwards every
// allocation and counts it until the DataPtr's deleter runs; the memory
// itself still comes from the allocator behind it (glibc's heap, which
// the known heap corruptions need). Allocations made before it was
// installed are not counted, nor are their frees. Counters are atomic:
// intra-op threads allocate too.
//
//   InstallCountingCpuAllocator();  // Before the first measured call.
//   ResetCpuPeakBytes();
//   const int64_t before = CpuAllocatedBytes();
//   ... call the op ...
//   const int64_t peak = CpuPeakBytes() - before;

#ifndef DPFUZZ_ORACLES_COUNTING_ALLOCATOR_H_
#define DPFUZZ_ORACLES_COUNTING_ALLOCATOR_H_

#include <cstdint>

namespace dpfuzz {

// Puts the counting allocator in front of c10's CPU allocator; idempotent.
// Not undone: a process that counts once keeps counting.
void InstallCountingCpuAllocator();

// Whether InstallCountingCpuAllocator ran in this process.
bool CountingCpuAllocatorInstalled();

// Bytes allocated through it and not yet freed.
int64_t CpuAllocatedBytes();

// The most bytes allocated at once since the last ResetCpuPeakBytes (or
// the install).
int64_t CpuPeakBytes();

// Starts the peak again from the bytes allocated now.
void ResetCpuPeakBytes();

}  // namespace dpfuzz

#endif  // DPFUZZ_ORACLES_COUNTING_ALLOCATOR_H_

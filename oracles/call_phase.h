// CallPhase: where a case stands while it runs, recorded so that it
// outlives a worker that dies.
//
// Note [Call phases]
// A worker that dies in the middle of a case is judged by where it died
// (see Note [Layout bugs and baseline failures] in oracles/verdict.h):
//  - inside an op call on the strided variant's tensors: a layout bug;
//  - inside an op call on the contiguous baseline's tensors (or their
//    float64 reference, or a probe that checks drawn arguments): the
//    arguments break the op, a baseline failure;
//  - in dpfuzz's own code, between op calls: dpfuzz's bug, an internal
//    error, never a finding. Except heap corruption: glibc notices it when
//    memory is freed, often after the op returned, so a death that glibc's
//    allocator calls corruption is blamed on the side of the last call, and
//    any other death after a call is judged by whether the case with plain
//    layouts dies too (Note [Deaths after a call],
//    crashes/isolation/supervisor.h).
// RunCase names the side of its calls with CallSideScope (calls outside
// any scope are baseline calls: probes of drawn arguments run
// contiguously); CallGuarded (oracles/invoke.h) marks each call. Both
// write one word that a worker maps from its slot
// (crashes/isolation/worker_slot.h), so the supervisor reads it after the
// death. Plain atomic stores: no cost next to an op call.
//
//   CallSideScope variant(CallSide::kVariant);
//   ... Invoke(op, c, variant.args) ...   // phase: variant, in a call
//   DecodeCallPhase(word).in_call

#ifndef DPFUZZ_ORACLES_CALL_PHASE_H_
#define DPFUZZ_ORACLES_CALL_PHASE_H_

#include <atomic>
#include <cstdint>

#include "absl/strings/string_view.h"

namespace dpfuzz {

enum class CallSide : uint8_t {
  kBaseline,  // "baseline": contiguous tensors (and references, probes).
  kVariant,   // "variant": the case's layouts.
};

absl::string_view CallSideName(CallSide side);

struct CallPhase {
  CallSide side = CallSide::kBaseline;  // Of the calls made now.
  bool in_call = false;                 // Inside an op call.
  bool called = false;                  // Any op call since the case began.
  CallSide last_called = CallSide::kBaseline;  // Side of the latest call.
  // A call of this case returned a sparse or compressed result, which it
  // read densified (to_dense, oracles/invoke.h): a death may be that
  // to_dense's, and a repro must read the result so to show it.
  bool densified = false;

  friend bool operator==(const CallPhase& a, const CallPhase& b) {
    return a.side == b.side && a.in_call == b.in_call && a.called == b.called &&
           a.last_called == b.last_called && a.densified == b.densified;
  }
};

uint32_t EncodeCallPhase(const CallPhase& phase);
CallPhase DecodeCallPhase(uint32_t word);

// Where the phase is recorded; by default a word of this process. A worker
// points it into its slot. Not owned; must outlive every call.
void SetCallPhaseSink(std::atomic<uint32_t>* sink);

CallPhase CurrentCallPhase();

// A new case: no call yet, baseline side.
void ResetCallPhase();

// The call in progress returned a sparse or compressed result and reads it
// densified.
void MarkResultDensified();

// Calls made while it lives are on `side`.
class CallSideScope {
 public:
  explicit CallSideScope(CallSide side);
  ~CallSideScope();
  CallSideScope(const CallSideScope&) = delete;
  CallSideScope& operator=(const CallSideScope&) = delete;

 private:
  CallSide previous_;
};

// Marks an op call while it lives (CallGuarded).
class InCallScope {
 public:
  InCallScope();
  ~InCallScope();
  InCallScope(const InCallScope&) = delete;
  InCallScope& operator=(const InCallScope&) = delete;

 private:
  bool previous_;
};

}  // namespace dpfuzz

#endif  // DPFUZZ_ORACLES_CALL_PHASE_H_

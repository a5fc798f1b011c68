#include "oracles/call_phase.h"

namespace dpfuzz {
namespace {

std::atomic<uint32_t> own_word{0};
std::atomic<std::atomic<uint32_t>*> sink{&own_word};

void Store(const CallPhase& phase) {
  sink.load(std::memory_order_relaxed)
      ->store(EncodeCallPhase(phase), std::memory_order_relaxed);
}

}  // namespace

absl::string_view CallSideName(CallSide side) {
  return side == CallSide::kVariant ? "variant" : "baseline";
}

uint32_t EncodeCallPhase(const CallPhase& p) {
  return static_cast<uint32_t>(p.side) |
         (static_cast<uint32_t>(p.in_call) << 8) |
         (static_cast<uint32_t>(p.called) << 9) |
         (static_cast<uint32_t>(p.densified) << 10) |
         (static_cast<uint32_t>(p.last_called) << 16);
}

CallPhase DecodeCallPhase(uint32_t word) {
  CallPhase p;
  p.side = (word & 0xff) == 1 ? CallSide::kVariant : CallSide::kBaseline;
  p.in_call = (word >> 8) & 1;
  p.called = (word >> 9) & 1;
  p.densified = (word >> 10) & 1;
  p.last_called =
      ((word >> 16) & 0xff) == 1 ? CallSide::kVariant : CallSide::kBaseline;
  return p;
}

void SetCallPhaseSink(std::atomic<uint32_t>* word) {
  sink.store(word != nullptr ? word : &own_word);
}

CallPhase CurrentCallPhase() {
  return DecodeCallPhase(
      sink.load(std::memory_order_relaxed)->load(std::memory_order_relaxed));
}

void ResetCallPhase() { Store(CallPhase{}); }

void MarkResultDensified() {
  CallPhase p = CurrentCallPhase();
  p.densified = true;
  Store(p);
}

CallSideScope::CallSideScope(CallSide side) {
  CallPhase p = CurrentCallPhase();
  previous_ = p.side;
  p.side = side;
  Store(p);
}

CallSideScope::~CallSideScope() {
  CallPhase p = CurrentCallPhase();
  p.side = previous_;
  Store(p);
}

InCallScope::InCallScope() {
  CallPhase p = CurrentCallPhase();
  previous_ = p.in_call;
  p.in_call = true;
  p.called = true;
  p.last_called = p.side;
  Store(p);
}

InCallScope::~InCallScope() {
  CallPhase p = CurrentCallPhase();
  p.in_call = previous_;
  Store(p);
}

}  // namespace dpfuzz

#include "kiln/rtl/analysis/timing.h"

#include <algorithm>

#include "kiln/support/error.h"

namespace kiln::rtl {

void DesignTiming::add_input(int buffer, int64_t numel, int64_t lanes) {
  if (lanes <= 0 || lanes >= numel) {
    for (int64_t e = 0; e < numel; ++e) elements_[{buffer, e}] = {0, 1, false};
    return;
  }
  const int64_t beats = numel / lanes;
  KILN_ASSERT(beats * lanes == numel, "an input's beats do not divide it");
  interval_ = std::max<int>(interval_, static_cast<int>(beats));
  for (int64_t e = 0; e < numel; ++e)
    elements_[{buffer, e}] = {static_cast<int>(e / lanes) + 1, static_cast<int>(beats), false};
  for (int64_t c = 0; c < lanes; ++c) {
    std::vector<int64_t>& at = port_writes_[{buffer, static_cast<int>(c)}];
    at.clear();
    for (int64_t j = 0; j < beats; ++j) at.push_back(j);
  }
}

const ElementTiming& DesignTiming::element(const dfg::Element& e) const {
  const auto it = elements_.find({e.buffer, e.element});
  KILN_ASSERT(it != elements_.end(), "an element no stage before produces is read");
  return it->second;
}

int DesignTiming::start_of(const std::vector<StagePortElement>& inputs,
                           const std::vector<StagePortElement>& channel_inputs) const {
  int start = 0;
  for (const auto* list : {&inputs, &channel_inputs})
    for (const StagePortElement& e : *list) start = std::max(start, element(e.where).ready - e.at);
  return start;
}

void DesignTiming::prepare(StageOptions& so) const {
  so.interval = interval_;
  so.time_inputs = [this](std::vector<StagePortElement>& inputs,
                          const std::vector<StagePortElement>& channel_inputs) {
    const int start = start_of(inputs, channel_inputs);
    for (StagePortElement& e : inputs) e.at = std::max(0, element(e.where).ready - start);
    return start;
  };
  so.channel_writes = [this](const Channel& c, int bank) {
    return port_writes(c.buffer, c.writes[static_cast<std::size_t>(bank)]);
  };
}

const std::vector<int64_t>& DesignTiming::port_writes(int buffer, int write) const {
  const auto it = port_writes_.find({buffer, write});
  KILN_ASSERT(it != port_writes_.end(), "a channel read before its producer is timed");
  return it->second;
}

int DesignTiming::commit(BuiltStage& b) {
  // The interval so far bounds how soon a stage starts again, so the holds
  // below are never longer than the final design's.
  interval_ = std::max(interval_, b.report.interval_cycles);
  const int start = start_of(b.inputs, b.channel_inputs);
  b.report.start_cycle = start;
  // A held result stays until the next sample (at least the interval later)
  // writes it again.
  for (const StagePortElement& e : b.outputs) {
    const int hold = e.held ? interval_ + e.rewritten - e.at + 1 : 1;
    KILN_ASSERT(hold >= 1, "a stage result is overwritten before it is valid");
    elements_[{e.where.buffer, e.where.element}] = {start + e.at, hold, false};
  }
  // Elements handed on through channels are in the consumer's memory from
  // `at` on.
  for (const StagePortElement& e : b.channel_outputs)
    elements_[{e.where.buffer, e.where.element}] = {start + e.at, 1, true};
  for (const auto& [key, times] : b.port_write_times) {
    std::vector<int64_t>& at = port_writes_[key];
    at.clear();
    for (int64_t t : times) at.push_back(start + t);
  }
  return start;
}

int DesignTiming::delay(const dfg::Element& e, int at) const {
  const ElementTiming& t = element(e);
  KILN_ASSERT(at >= t.ready, "an element is read before it is ready");
  return std::max(0, at - (t.ready + t.hold - 1));
}

int DesignTiming::latest(const std::vector<std::pair<int, int64_t>>& buffers) const {
  int latency = 1;
  for (const auto& [b, numel] : buffers)
    for (int64_t e = 0; e < numel; ++e) latency = std::max(latency, element({b, e}).ready);
  return latency;
}

}  // namespace kiln::rtl

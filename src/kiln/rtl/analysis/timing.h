// A design's timing, computed from its stages' ports apart from any hardware
// (docs/rtl-design.md, "Dataflow between layers"): when each stage starts
// after a sample enters, when each element it hands on is valid and for how
// long, when each channel bank is written, and so which values the top must
// delay (its delay lines) and by how much. The searches build it as they
// price candidates in order (each priced where its producers put it); the
// design's build, as it builds the stages.
//
// A stage starts at the first cycle at which every element it reads is
// valid by the cycle it takes it; a stage that may take an element earlier
// (a kept loop: any cycle before the element's first read) takes it when it
// is valid, so it needs no delay. An element is valid from `ready` for
// `hold` cycles: an unrolled stage's results for one cycle, a kept loop's
// until the next sample's first write to them (at least the design's
// interval later); a read after that is served by a delay line.
#pragma once

#include <cstdint>
#include <map>
#include <utility>
#include <vector>

#include "kiln/dfg/graph.h"
#include "kiln/rtl/stage/stage.h"

namespace kiln::rtl {

struct ElementTiming {
  int ready = 0;            // the cycle after a sample enters when the element is valid
  int hold = 1;             // the cycles it stays valid from then on
  bool in_channel = false;  // in its consumer's memory (no wire of the top)
};

class DesignTiming {
 public:
  // A model input's elements, `lanes` a beat (design.h Port). One beat: all
  // valid in cycle 0, for one cycle. Streamed: beat j comes in cycle j;
  // lane c writes bank c of any channel that takes the input (its writes
  // port_writes(buffer, c)), and the top registers the beat for readers in
  // registers, valid from cycle j + 1 until the next sample's beat j (at
  // least `beats` cycles: the interval is at least the beats).
  void add_input(int buffer, int64_t numel, int64_t lanes);

  // The options for the next stage's build: StageOptions::time_inputs and
  // channel_writes answered from the stages committed so far, and the
  // interval so far.
  void prepare(StageOptions& options) const;

  // Records a stage built with prepare()'s options: its start (also set in
  // its report), when its outputs are valid, its channel writes. Returns
  // the start.
  int commit(BuiltStage& stage);

  // The cycle stage `inputs` must start at (the first at which each input
  // is valid by its `at`).
  int start_of(const std::vector<StagePortElement>& inputs,
               const std::vector<StagePortElement>& channel_inputs) const;

  const ElementTiming& element(const dfg::Element& e) const;
  // The registers a read of `e` in cycle `at` (after a sample enters) needs
  // behind its last valid cycle: 0 when it is still valid.
  int delay(const dfg::Element& e, int at) const;

  int interval() const { return interval_; }
  // When every element of these buffers is valid: the design's latency.
  int latest(const std::vector<std::pair<int, int64_t>>& buffers) const;

  // The cycles (after a sample enters) at which write port `write` of the
  // stage that writes `buffer` writes, in order: a channel bank's writes.
  const std::vector<int64_t>& port_writes(int buffer, int write) const;

 private:
  std::map<std::pair<int, int64_t>, ElementTiming> elements_;
  std::map<std::pair<int, int>, std::vector<int64_t>> port_writes_;
  int interval_ = 1;
};

}  // namespace kiln::rtl

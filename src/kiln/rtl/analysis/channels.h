// Channels: a tensor handed from one layer's kept loop to another's through
// memories, where the producer writes it in the order the consumer reads it
// (seed 002's streams, hls4ml's io_stream): a convolution's rows into a
// pooling's, a pooling's pixels into a line-buffered convolution's.
//
// Without a channel the producer keeps every element of its result in a
// register until the next sample and the consumer copies each into a
// register of its own, read through a multiplexer over every element a read
// reaches. With one, each of the producer's writes into the tensor (a port
// of its loop's body) is a bank: the consumer holds a small circular memory
// per bank for each read of it, written as the producer writes (one element
// per write, in order, or only the writes the read reaches when they recur
// with a short period) and read at the element's place in that order, which
// the channel gives as a linear function of the consumer's loop variables.
// The memories are as deep as the two schedules need: the most writes of a
// bank that can happen between an element's write and its last read, over
// consecutive samples (loop_stage.h), rounded up to a power of two.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "kiln/dfg/unroll.h"
#include "kiln/loop/loop_ir.h"

namespace kiln::rtl {

// A read of the consumer's body that a channel serves.
struct ChannelRead {
  int read = -1;  // LoopBody::reads index in the consumer
  // The bank it reads (index into Channel::writes), or -1 when the read
  // crosses the banks (a pointwise convolution with its input-channel loop
  // kept reads the lane its variable says): then the element's place is
  // rank << lanes_log2 | bank, the banks' orders interleaved.
  int bank = -1;
  int lanes_log2 = 0;
  // The element's place within a sample: base + step[0] * v0 + step[1] * v1
  // + ..., v the consumer's kept variables in the iteration (LoopBody::values:
  // one for a plain loop, one per loop of a flattened nest). For a read of
  // one bank the place is the element's rank in its bank's order of writes.
  int64_t base = 0;
  std::vector<int64_t> step;
  // A read that reaches only some of the writes of the banks it reads keeps
  // only those in its memories (a pooling window's column reads one pixel
  // in five): the bank's write of rank i is kept when takes[i % period],
  // the same pattern in every bank it reads, and the place counts the kept
  // writes only. Empty: every write is kept.
  std::vector<bool> takes;
  bool filtered() const { return !takes.empty(); }
  int64_t place(const std::vector<int64_t>& v) const {
    int64_t r = base;
    for (std::size_t i = 0; i < v.size() && i < step.size(); ++i) r += step[i] * v[i];
    return r;
  }
  bool crosses() const { return bank < 0; }
  int bank_at(const std::vector<int64_t>& v) const {
    return crosses() ? static_cast<int>(place(v) & ((int64_t{1} << lanes_log2) - 1)) : bank;
  }
  int64_t rank_at(const std::vector<int64_t>& v) const {
    return crosses() ? place(v) >> lanes_log2 : place(v);
  }
  bool operator==(const ChannelRead&) const = default;
};

// The longest period of a filtered read's pattern (ChannelRead::takes):
// its bits are a table the consumer reads once per write.
inline constexpr int64_t kMaxTakesPeriod = 1024;

// Channel::producer of a model input streamed by the top (design.h Port):
// its banks are the lanes of a beat, each written once a beat.
inline constexpr int kTopProducer = -1;

struct Channel {
  int buffer = -1;    // the storage buffer handed on
  int producer = -1;  // kernel indices (kTopProducer: a model input)
  int consumer = -1;
  std::vector<int> writes;          // the producer's body writes into it, one bank each
  std::vector<int64_t> per_sample;  // how many times each bank is written per sample
  std::vector<ChannelRead> reads;   // every consumer read of the buffer
  bool operator==(const Channel&) const = default;
};

// How a tensor from one layer to another travels, for reports: through a
// channel's memories, or in registers (the producer's, copied by the
// consumer) and why.
struct Handoff {
  std::string tensor, producer, consumer;  // buffer and kernel names
  bool channel = false;
  std::string why;  // when not a channel
  // When not a channel: the tensor's bits, which the consumer (or the top,
  // for a model input) holds in registers.
  int64_t register_bits = 0;
};

// A channel bank's port on its stages and wire in the top:
// chw_<buffer>_<bank> (data), chv_... (valid: the bank is written this cycle).
inline std::string channel_port(const char* what, const std::pair<int, int>& bank) {
  return std::string(what) + "_" + std::to_string(bank.first) + "_" + std::to_string(bank.second);
}

// The channel between `producer` and `consumer` (each split at its kept loop)
// over storage buffer `buffer`, or nullopt when the accesses do not make one:
// the producer writes the buffer only through its loop body's ports, each
// element once per sample; the consumer reads it only through its body's
// ports, each read either staying in one bank with a rank linear in its
// variables, or crossing banks written equally often with an interleaved
// place (ChannelRead) linear in them; no other kernel writes it (others may
// read it, each through a channel of its own: the producer's write ports
// feed every reader's memories);
// and it is not a model input or output. `why`, when
// given, says which of these fails.
std::optional<Channel> plan_channel(const loop::Program& program, int buffer, int producer,
                                    const dfg::SplitKernel& produced, int consumer,
                                    const dfg::SplitKernel& consumed, std::string* why = nullptr);

// The channel from the top to `consumer` over model input `buffer`,
// streamed `lanes` elements a beat (beat j's lane c is element j*lanes + c,
// written into bank c in cycle j): the consumer's reads fitted as for
// plan_channel, or nullopt with `why`.
std::optional<Channel> plan_input_channel(const loop::Program& program, int buffer, int64_t lanes,
                                          int consumer, const dfg::SplitKernel& consumed,
                                          std::string* why = nullptr);

// Checks a channel against the two splits independently of plan_channel:
// every consumer read, in every iteration it happens, finds its element
// written by its bank's write at the place the channel gives. Throws
// kiln::Error(Internal) naming the read and iteration otherwise.
void verify_channel(const loop::Program& program, const Channel& channel,
                    const dfg::SplitKernel& produced, const dfg::SplitKernel& consumed);
// The same for a model input's channel (plan_input_channel), whose banks'
// orders are the beats'.
void verify_input_channel(const loop::Program& program, const Channel& channel,
                          const dfg::SplitKernel& consumed);

}  // namespace kiln::rtl

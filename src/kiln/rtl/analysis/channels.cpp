#include "kiln/rtl/analysis/channels.h"

#include <fmt/format.h>

#include <algorithm>
#include <map>

#include "kiln/support/error.h"

namespace kiln::rtl {

namespace {

// Whether graph `g` reads or writes storage buffer `b` at a fixed element.
bool fixed_access(const dfg::Graph& g, int b) {
  for (uint32_t n = 0; n < g.size(); ++n)
    if (g.node(n).op == dfg::NodeOp::Input && g.input_of(n).buffer == b &&
        g.input_of(n).element >= 0)
      return true;
  for (const dfg::Output& o : g.outputs())
    if (o.where.buffer == b && o.where.element >= 0) return true;
  return false;
}

bool writes(const loop::Program& p, const loop::Kernel& k, int b) {
  for (int x : k.writes)
    if (p.storage_of(x) == b) return true;
  return false;
}

// Where each element of the buffer is written in a sample: its bank (index
// into the writes) and its place in that bank's order.
struct Place {
  int bank = -1;
  int64_t rank = 0;
};

// The element a body access reaches in iteration k, or -1 (it does not
// happen, or falls outside the buffer).
int64_t reached(const dfg::LoopBody& body, const dfg::PortAccess& pa, int64_t k, int64_t numel) {
  if (!body.happens(pa, k)) return -1;
  const int64_t e = body.element_at(pa.element, k);
  return e >= 0 && e < numel ? e : -1;
}

// base + step . vars, the fit of `rank` over the iterations given.
std::optional<ChannelRead> fit(const dfg::LoopBody& body,
                               const std::vector<std::pair<int64_t, int64_t>>& points) {
  ChannelRead r;
  const std::size_t d = body.kept.size();
  r.step.assign(d, 0);
  if (points.empty()) return r;
  // From the innermost variable out: a point that agrees with the first in
  // every variable outside v_i and differs in v_i gives step[i], the inner
  // variables' share taken off; then every point must agree.
  const auto [k0, rank0] = points[0];
  const std::vector<int64_t> v0 = body.values(k0);
  for (std::size_t i = d; i-- > 0;) {
    for (const auto& [k, rank] : points) {
      const std::vector<int64_t> v = body.values(k);
      if (v[i] == v0[i] || !std::equal(v.begin(), v.begin() + static_cast<long>(i), v0.begin()))
        continue;
      int64_t rest = rank - rank0;
      for (std::size_t j = i + 1; j < d; ++j) rest -= r.step[j] * (v[j] - v0[j]);
      if (rest % (v[i] - v0[i]) != 0) return std::nullopt;
      r.step[i] = rest / (v[i] - v0[i]);
      break;
    }
  }
  r.base = rank0;
  for (std::size_t i = 0; i < d; ++i) r.base -= r.step[i] * v0[i];
  for (const auto& [k, rank] : points)
    if (r.place(body.values(k)) != rank) return std::nullopt;
  return r;
}

// Which writes of the banks a read reaches (iteration, place) it keeps: the
// ranks it reaches in each bank, when they are the same in every bank, leave
// some out and repeat with a period (dividing the bank's writes per sample,
// so the pattern restarts with each sample) of at most kMaxTakesPeriod;
// empty otherwise (the read keeps every write).
template <typename At>
std::vector<bool> takes_of(const At& at, const Channel& c) {
  std::map<int, std::vector<bool>> reached;  // bank -> rank reached
  for (const auto& [k, pl] : at) {
    auto [it, fresh] = reached.try_emplace(pl.bank);
    if (fresh)
      it->second.assign(static_cast<std::size_t>(c.per_sample[static_cast<std::size_t>(pl.bank)]),
                        false);
    it->second[static_cast<std::size_t>(pl.rank)] = true;
  }
  const std::vector<bool>& bits = reached.begin()->second;
  for (const auto& [bank, b] : reached)
    if (b != bits) return {};
  if (std::find(bits.begin(), bits.end(), false) == bits.end()) return {};
  const auto n = static_cast<int64_t>(bits.size());
  for (int64_t period = 1; period <= std::min(n, kMaxTakesPeriod); ++period) {
    if (n % period != 0) continue;
    bool repeats = true;
    for (int64_t i = period; i < n && repeats; ++i)
      repeats = bits[static_cast<std::size_t>(i)] == bits[static_cast<std::size_t>(i % period)];
    if (repeats) return {bits.begin(), bits.begin() + period};
  }
  return {};
}

// The consumer's reads of channel `c` whose elements are written at
// `place`: each read's place fitted (ChannelRead), or why not.
std::optional<Channel> fit_reads(const loop::Program& p, Channel c, const std::vector<Place>& place,
                                 const dfg::SplitKernel& consumed, std::string* why) {
  const auto no = [&](std::string reason) -> std::optional<Channel> {
    if (why) *why = std::move(reason);
    return std::nullopt;
  };
  const loop::Buffer& buf = p.buffers.at(static_cast<std::size_t>(c.buffer));
  const int buffer = c.buffer;
  for (const dfg::PortAccess& pa : consumed.body.writes)
    if (pa.buffer == buffer) return no("the consumer writes it");
  const dfg::LoopBody& cb = consumed.body;
  int lanes_log2 = 0;
  while ((std::size_t{1} << lanes_log2) < c.writes.size()) ++lanes_log2;
  for (std::size_t r = 0; r < cb.reads.size(); ++r) {
    if (cb.reads[r].buffer != buffer) continue;
    // Each iteration's element: its bank and rank.
    std::vector<std::pair<int64_t, Place>> at;
    for (int64_t k = 0; k < cb.trip; ++k) {
      const int64_t e = reached(cb, cb.reads[r], k, buf.numel());
      if (e < 0) continue;
      const Place& pl = place[static_cast<std::size_t>(e)];
      if (pl.bank < 0) return no(fmt::format("read {} reaches element {}, never written", r, e));
      at.emplace_back(k, pl);
    }
    if (at.empty()) return no(fmt::format("read {} never happens", r));
    const bool one_bank = std::all_of(at.begin(), at.end(), [&](const auto& a) {
      return a.second.bank == at.front().second.bank;
    });
    if (!one_bank) {
      // One address for every bank: each is written as often.
      for (const auto& [k, pl] : at)
        if (c.per_sample[static_cast<std::size_t>(pl.bank)] != c.per_sample.front())
          return no(fmt::format("read {} crosses banks written unequally often", r));
    }
    // The place among the writes the read keeps: only those it reaches
    // when that is linear too, else all.
    const auto fit_kept = [&](std::vector<bool> takes) {
      // How many of a period's first i writes it keeps, for each i.
      std::vector<int64_t> before(takes.size() + 1, 0);
      for (std::size_t i = 0; i < takes.size(); ++i) before[i + 1] = before[i] + takes[i];
      const auto period = static_cast<int64_t>(takes.size());
      std::vector<std::pair<int64_t, int64_t>> points;  // iteration, place
      for (const auto& [k, pl] : at) {
        const int64_t rank = takes.empty() ? pl.rank
                                           : pl.rank / period * before.back() +
                                                 before[static_cast<std::size_t>(pl.rank % period)];
        points.emplace_back(k, one_bank ? rank : rank << lanes_log2 | pl.bank);
      }
      std::optional<ChannelRead> read = fit(cb, points);
      if (read) read->takes = std::move(takes);
      return read;
    };
    std::optional<ChannelRead> read;
    if (std::vector<bool> takes = takes_of(at, c); !takes.empty()) read = fit_kept(takes);
    if (!read) read = fit_kept({});
    if (!read)
      return no(fmt::format("read {}'s place {} not linear in the variables", r,
                            one_bank ? "in its bank is" : "across the banks is"));
    read->read = static_cast<int>(r);
    read->bank = one_bank ? at.front().second.bank : -1;
    read->lanes_log2 = one_bank ? 0 : lanes_log2;
    c.reads.push_back(*read);
  }
  if (c.reads.empty()) return no("the consumer's body does not read it");
  return c;
}

}  // namespace

std::optional<Channel> plan_channel(const loop::Program& p, int buffer, int producer,
                                    const dfg::SplitKernel& produced, int consumer,
                                    const dfg::SplitKernel& consumed, std::string* why) {
  const auto no = [&](std::string reason) -> std::optional<Channel> {
    if (why) *why = std::move(reason);
    return std::nullopt;
  };
  const loop::Buffer& buf = p.buffers.at(static_cast<std::size_t>(buffer));
  if (buf.role != loop::BufferRole::Tensor || p.storage_of(buffer) != buffer)
    return no("not a tensor of its own storage");
  // Others may read it (each through a channel of its own: plan_channels
  // gives every reader one or none), not write it.
  for (std::size_t k = 0; k < p.kernels.size(); ++k)
    if (static_cast<int>(k) != producer && writes(p, p.kernels[k], buffer))
      return no(fmt::format("kernel {} also writes it", p.kernels[k].name));
  // The producer writes it only through its body's ports, the consumer reads
  // it only through its body's.
  for (const dfg::Graph* g : {&produced.before, &produced.body.graph, &produced.after,
                              &consumed.before, &consumed.body.graph, &consumed.after})
    if (fixed_access(*g, buffer)) return no("accessed outside a loop body");
  for (const dfg::PortAccess& pa : produced.body.reads)
    if (pa.buffer == buffer) return no("the producer reads it back");

  Channel c;
  c.buffer = buffer;
  c.producer = producer;
  c.consumer = consumer;
  const dfg::LoopBody& pb = produced.body;
  std::map<int, int> bank_of_write;
  for (std::size_t w = 0; w < pb.writes.size(); ++w)
    if (pb.writes[w].buffer == buffer) {
      bank_of_write[static_cast<int>(w)] = static_cast<int>(c.writes.size());
      c.writes.push_back(static_cast<int>(w));
    }
  if (c.writes.empty()) return no("the producer's body does not write it");
  // Each element once per sample, in the order of the iterations.
  std::vector<Place> place(static_cast<std::size_t>(buf.numel()));
  c.per_sample.assign(c.writes.size(), 0);
  for (int64_t k = 0; k < pb.trip; ++k)
    for (std::size_t i = 0; i < c.writes.size(); ++i) {
      const int64_t e =
          reached(pb, pb.writes[static_cast<std::size_t>(c.writes[i])], k, buf.numel());
      if (e < 0) continue;
      Place& at = place[static_cast<std::size_t>(e)];
      if (at.bank >= 0) return no(fmt::format("element {} written twice", e));
      at = {static_cast<int>(i), c.per_sample[i]++};
    }
  return fit_reads(p, std::move(c), place, consumed, why);
}

std::optional<Channel> plan_input_channel(const loop::Program& p, int buffer, int64_t lanes,
                                          int consumer, const dfg::SplitKernel& consumed,
                                          std::string* why) {
  const loop::Buffer& buf = p.buffers.at(static_cast<std::size_t>(buffer));
  const int64_t numel = buf.numel();
  if (lanes <= 0 || lanes >= numel || numel % lanes != 0) {
    if (why) *why = "the input comes in one beat";
    return std::nullopt;
  }
  for (const dfg::Graph* g : {&consumed.before, &consumed.body.graph, &consumed.after})
    if (fixed_access(*g, buffer)) {
      if (why) *why = "accessed outside a loop body";
      return std::nullopt;
    }
  Channel c;
  c.buffer = buffer;
  c.producer = kTopProducer;
  c.consumer = consumer;
  for (int64_t lane = 0; lane < lanes; ++lane) c.writes.push_back(static_cast<int>(lane));
  c.per_sample.assign(static_cast<std::size_t>(lanes), numel / lanes);
  std::vector<Place> place(static_cast<std::size_t>(numel));
  for (int64_t e = 0; e < numel; ++e)
    place[static_cast<std::size_t>(e)] = {static_cast<int>(e % lanes), e / lanes};
  return fit_reads(p, std::move(c), place, consumed, why);
}

namespace {

// Every read of channel `c` finds, in every iteration, its element at the
// place the channel gives in `order` (each bank's elements as written).
void check_reads(const loop::Program& p, const Channel& c,
                 const std::vector<std::vector<int64_t>>& order, const dfg::SplitKernel& consumed) {
  const int64_t numel = p.buffers.at(static_cast<std::size_t>(c.buffer)).numel();
  const dfg::LoopBody& cb = consumed.body;
  for (const ChannelRead& r : c.reads) {
    const dfg::PortAccess& pa = cb.reads.at(static_cast<std::size_t>(r.read));
    // Each bank's elements as this read keeps them (the pattern restarts
    // with each sample in the banks it reads).
    std::vector<std::vector<int64_t>> filtered;
    if (r.filtered())
      for (const std::vector<int64_t>& bank : order) {
        std::vector<int64_t>& taken = filtered.emplace_back();
        if (bank.size() % r.takes.size() != 0) continue;
        for (std::size_t i = 0; i < bank.size(); ++i)
          if (r.takes[i % r.takes.size()]) taken.push_back(bank[i]);
      }
    const std::vector<std::vector<int64_t>>& kept = r.filtered() ? filtered : order;
    for (int64_t k = 0; k < cb.trip; ++k) {
      const int64_t e = reached(cb, pa, k, numel);
      if (e < 0) continue;
      const std::vector<int64_t> v = cb.values(k);
      const int bank_index = r.bank_at(v);
      const int64_t rank = r.rank_at(v);
      KILN_ASSERT(bank_index >= 0 && bank_index < static_cast<int>(order.size()),
                  fmt::format("channel @{}: read {} in iteration {} finds bank {} of {}",
                              p.buffers[static_cast<std::size_t>(c.buffer)].name, r.read, k,
                              bank_index, order.size()));
      const std::vector<int64_t>& bank = kept[static_cast<std::size_t>(bank_index)];
      KILN_ASSERT(rank >= 0 && rank < static_cast<int64_t>(bank.size()) &&
                      bank[static_cast<std::size_t>(rank)] == e,
                  fmt::format("channel @{}: read {} in iteration {} finds place {} of bank {}, "
                              "not element {}",
                              p.buffers[static_cast<std::size_t>(c.buffer)].name, r.read, k, rank,
                              bank_index, e));
    }
  }
}

}  // namespace

void verify_channel(const loop::Program& p, const Channel& c, const dfg::SplitKernel& produced,
                    const dfg::SplitKernel& consumed) {
  const int64_t numel = p.buffers.at(static_cast<std::size_t>(c.buffer)).numel();
  const dfg::LoopBody& pb = produced.body;
  // Each bank's elements in the order written.
  std::vector<std::vector<int64_t>> order(c.writes.size());
  for (int64_t k = 0; k < pb.trip; ++k)
    for (std::size_t i = 0; i < c.writes.size(); ++i)
      if (const int64_t e =
              reached(pb, pb.writes.at(static_cast<std::size_t>(c.writes[i])), k, numel);
          e >= 0)
        order[i].push_back(e);
  for (std::size_t i = 0; i < c.writes.size(); ++i)
    KILN_ASSERT(static_cast<int64_t>(order[i].size()) == c.per_sample.at(i),
                fmt::format("channel @{}: bank {} is written {} times per sample, not {}",
                            p.buffers[static_cast<std::size_t>(c.buffer)].name, i, order[i].size(),
                            c.per_sample[i]));
  check_reads(p, c, order, consumed);
}

void verify_input_channel(const loop::Program& p, const Channel& c,
                          const dfg::SplitKernel& consumed) {
  const int64_t numel = p.buffers.at(static_cast<std::size_t>(c.buffer)).numel();
  const auto lanes = static_cast<int64_t>(c.writes.size());
  KILN_ASSERT(c.producer == kTopProducer && lanes > 0 && numel % lanes == 0,
              "an input channel whose lanes do not divide the input");
  // Beat j's lane c is element j * lanes + c.
  std::vector<std::vector<int64_t>> order(c.writes.size());
  for (int64_t e = 0; e < numel; ++e) order[static_cast<std::size_t>(e % lanes)].push_back(e);
  for (std::size_t i = 0; i < order.size(); ++i)
    KILN_ASSERT(static_cast<int64_t>(order[i].size()) == c.per_sample.at(i),
                "an input channel's bank is not written once a beat");
  check_reads(p, c, order, consumed);
}

}  // namespace kiln::rtl

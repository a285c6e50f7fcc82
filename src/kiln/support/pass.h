// Passes and pipelines over any IR: the graph IR (graph/), the HLS layer
// model (hls/); the Loop IR and the dataflow graphs have no passes of this
// kind yet (their transformations are functions: loop::line_buffer,
// dfg/unroll.h).
//
// A pass has a name and a run() that rewrites the IR in place and says whether
// it changed anything (as XLS's passes do). A pipeline is plain data, a list of
// passes; after every pass it checks the IR with IrTraits<IR>::verify, so a
// faulty rewrite fails at the pass that made it. A registry maps pass names to
// factories, so `kiln opt --passes a,b,c` and the default pipelines name passes
// the same way.
//
// An IR opts in by specializing IrTraits next to its definition:
//   template <> struct IrTraits<MyIr> {
//     static constexpr std::string_view kName = "my IR";
//     static void verify(const MyIr&, std::string_view after_pass);  // throws Internal
//     static std::string print(const MyIr&);
//   };
#pragma once

#include <chrono>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "kiln/support/error.h"
#include "kiln/support/strings.h"

namespace kiln {

template <class IR>
struct IrTraits;

template <class IR>
class Pass {
 public:
  virtual ~Pass() = default;
  // Short snake_case name ("fold_batchnorm").
  virtual std::string_view name() const = 0;
  // Rewrites `ir`; returns true if anything changed. Leaves `ir` valid
  // (IrTraits<IR>::verify passes).
  virtual bool run(IR& ir) = 0;
};

// What one pass of a pipeline did.
struct PassRecord {
  std::string name;
  bool changed = false;
  double seconds = 0;
};

// Called around each pass of a pipeline (printing after each pass, checking
// each pass against a reference). `after` runs once the IR is verified.
template <class IR>
struct PassHooks {
  std::function<void(std::string_view pass, const IR& ir)> before;
  std::function<void(std::string_view pass, const IR& ir, bool changed)> after;
};

template <class IR>
class PassPipeline {
 public:
  PassPipeline& add(std::unique_ptr<Pass<IR>> pass) {
    passes_.push_back(std::move(pass));
    return *this;
  }
  const std::vector<std::unique_ptr<Pass<IR>>>& passes() const { return passes_; }

  std::vector<PassRecord> run(IR& ir, const PassHooks<IR>& hooks = {}) const {
    std::vector<PassRecord> records;
    for (const auto& pass : passes_) {
      if (hooks.before) hooks.before(pass->name(), ir);
      const auto t0 = std::chrono::steady_clock::now();
      const bool changed = pass->run(ir);
      const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
      records.push_back(PassRecord{std::string(pass->name()), changed, s});
      IrTraits<IR>::verify(ir, pass->name());
      if (hooks.after) hooks.after(pass->name(), ir, changed);
    }
    return records;
  }

 private:
  std::vector<std::unique_ptr<Pass<IR>>> passes_;
};

template <class IR>
class PassRegistry {
 public:
  using Factory = std::function<std::unique_ptr<Pass<IR>>()>;
  struct Entry {
    std::string name;
    std::string description;
    Factory make;
  };

  PassRegistry& add(std::string name, std::string description, Factory make) {
    KILN_ASSERT(find(name) == nullptr, "pass registered twice: " + name);
    entries_.push_back(Entry{std::move(name), std::move(description), std::move(make)});
    return *this;
  }
  const std::vector<Entry>& entries() const { return entries_; }
  const Entry* find(std::string_view name) const {
    for (const Entry& e : entries_)
      if (e.name == name) return &e;
    return nullptr;
  }

  // The named passes in order; an unknown name is a Usage error that lists
  // the closest spelling or every pass.
  PassPipeline<IR> pipeline(const std::vector<std::string>& names) const {
    PassPipeline<IR> p;
    for (const std::string& n : names) {
      const Entry* e = find(n);
      if (e == nullptr) {
        std::vector<std::string> known;
        for (const Entry& k : entries_) known.push_back(k.name);
        const auto best = closest_spelling(n, known);
        throw_error(ErrorKind::Usage, "pass '" + n + "'",
                    std::string("no such pass for the ") + std::string(IrTraits<IR>::kName),
                    best ? "did you mean '" + *best + "'?" : "passes: " + join(known, ", "));
      }
      p.add(e->make());
    }
    return p;
  }

 private:
  std::vector<Entry> entries_;
};

}  // namespace kiln

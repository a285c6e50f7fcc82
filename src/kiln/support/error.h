// Errors a user can cause, and the exit codes the CLI maps them to.
//
// Every problem that bad input can trigger is thrown as kiln::Error, carrying
// what went wrong, where (file, node, tensor, key) and what to do about it. The
// CLI prints Error::message() as one line and exits with exit_code(kind).
// Violated internal invariants are KILN_ASSERT failures (ErrorKind::Internal).
#pragma once

#include <stdexcept>
#include <string>

namespace kiln {

enum class ErrorKind {
  Usage,         // bad command line (exit 2)
  InvalidModel,  // malformed or inconsistent model, input or config (exit 2)
  Io,            // a file cannot be read or written (exit 2)
  Unsupported,   // valid input that kiln does not handle yet (exit 3)
  Internal,      // a kiln bug (exit 4)
};

// Documented process exit codes (README "Exit codes").
inline constexpr int kExitOk = 0;
inline constexpr int kExitMismatch = 1;
inline constexpr int kExitInvalid = 2;
inline constexpr int kExitUnsupported = 3;
inline constexpr int kExitInternal = 4;

int exit_code(ErrorKind kind);
const char* to_string(ErrorKind kind);

class Error : public std::runtime_error {
 public:
  Error(ErrorKind kind, std::string where, std::string what, std::string hint = {});

  ErrorKind kind() const { return kind_; }
  const std::string& where() const { return where_; }
  const std::string& what_happened() const { return what_; }
  const std::string& hint() const { return hint_; }
  // "where: what; hint" on one line.
  const std::string& message() const { return message_; }

  // Returns a copy whose location is prefixed with `outer` ("model.onnx: node 'x'").
  Error within(const std::string& outer) const;

  // For an Unsupported error that goes away once one value is a constant (a
  // Slice bound or Resize scale fed at run time): that value's model name.
  const std::string& needs_constant() const { return needs_constant_; }
  Error& set_needs_constant(std::string value_name) {
    needs_constant_ = std::move(value_name);
    return *this;
  }

 private:
  ErrorKind kind_;
  std::string where_, what_, hint_, message_;
  std::string needs_constant_;
};

[[noreturn]] void throw_error(ErrorKind kind, std::string where, std::string what,
                              std::string hint = {});

[[noreturn]] void assertion_failed(const char* condition, const char* file, int line,
                                   const std::string& detail);

}  // namespace kiln

// Internal invariant. Never reachable from user input; fuzzing keeps it so.
#define KILN_ASSERT(cond, detail)                                             \
  do {                                                                        \
    if (!(cond)) ::kiln::assertion_failed(#cond, __FILE__, __LINE__, detail); \
  } while (0)

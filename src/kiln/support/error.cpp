#include "kiln/support/error.h"

#include <string>

namespace kiln {

int exit_code(ErrorKind kind) {
  switch (kind) {
    case ErrorKind::Usage:
    case ErrorKind::InvalidModel:
    case ErrorKind::Io: return kExitInvalid;
    case ErrorKind::Unsupported: return kExitUnsupported;
    case ErrorKind::Internal: return kExitInternal;
  }
  return kExitInternal;
}

const char* to_string(ErrorKind kind) {
  switch (kind) {
    case ErrorKind::Usage: return "usage error";
    case ErrorKind::InvalidModel: return "invalid input";
    case ErrorKind::Io: return "i/o error";
    case ErrorKind::Unsupported: return "unsupported";
    case ErrorKind::Internal: return "internal error";
  }
  return "error";
}

static std::string compose(const std::string& where, const std::string& what,
                           const std::string& hint) {
  std::string m = where.empty() ? what : where + ": " + what;
  if (!hint.empty()) m += "; " + hint;
  // One line, always: the CLI promises single-line errors.
  for (char& c : m)
    if (c == '\n' || c == '\r') c = ' ';
  return m;
}

Error::Error(ErrorKind kind, std::string where, std::string what, std::string hint)
    : std::runtime_error(compose(where, what, hint)),
      kind_(kind),
      where_(std::move(where)),
      what_(std::move(what)),
      hint_(std::move(hint)),
      message_(compose(where_, what_, hint_)) {}

Error Error::within(const std::string& outer) const {
  std::string w = where_.empty() ? outer : outer + ": " + where_;
  Error e(kind_, w, what_, hint_);
  e.needs_constant_ = needs_constant_;
  return e;
}

void throw_error(ErrorKind kind, std::string where, std::string what, std::string hint) {
  throw Error(kind, std::move(where), std::move(what), std::move(hint));
}

void assertion_failed(const char* condition, const char* file, int line,
                      const std::string& detail) {
  throw Error(ErrorKind::Internal, std::string(file) + ":" + std::to_string(line),
              std::string("internal invariant violated: ") + condition +
                  (detail.empty() ? "" : " (" + detail + ")"),
              "this is a kiln bug; please report it with the model that triggers it");
}

}  // namespace kiln

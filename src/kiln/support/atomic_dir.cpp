#include "kiln/support/atomic_dir.h"

#include <unistd.h>

#include <fstream>
#include <random>
#include <string>
#include <system_error>

#include "kiln/support/error.h"

namespace kiln {

namespace fs = std::filesystem;

void write_file_atomically(const fs::path& path, std::string_view bytes) {
  const fs::path tmp = path.string() + ".kiln-tmp";
  {
    std::ofstream f(tmp, std::ios::binary);
    f.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
    if (!f.flush())
      throw_error(ErrorKind::Io, path.string(), "cannot write file",
                  "check that the directory exists and is writable");
  }
  std::error_code ec;
  fs::rename(tmp, path, ec);
  if (ec) {
    fs::remove(tmp, ec);
    throw_error(ErrorKind::Io, path.string(), "cannot write file", "check permissions");
  }
}

static bool is_empty_dir(const fs::path& p) {
  std::error_code ec;
  return fs::is_directory(p, ec) && fs::is_empty(p, ec);
}

AtomicDir::AtomicDir(fs::path target, bool replace_existing)
    : target_(std::move(target)), replace_existing_(replace_existing) {
  std::error_code ec;
  if (fs::exists(target_, ec) && !replace_existing_ && !is_empty_dir(target_))
    throw_error(ErrorKind::Io, target_.string(), "output directory exists and is not empty",
                "choose another -o directory or remove it");
  fs::path parent = target_.has_parent_path() ? target_.parent_path() : fs::path(".");
  if (parent.empty()) parent = ".";
  fs::create_directories(parent, ec);
  if (ec)
    throw_error(ErrorKind::Io, parent.string(), "cannot create directory: " + ec.message(),
                "check the path and its permissions");
  std::random_device rd;
  const std::string name = "." + target_.filename().string() + ".kiln-tmp-" +
                           std::to_string(::getpid()) + "-" + std::to_string(rd() % 1000000);
  staging_ = parent / name;
  fs::create_directory(staging_, ec);
  if (ec)
    throw_error(ErrorKind::Io, staging_.string(), "cannot create directory: " + ec.message(),
                "check that the output location is writable");
}

AtomicDir::~AtomicDir() {
  if (!committed_) {
    std::error_code ec;
    fs::remove_all(staging_, ec);  // best effort; nothing to report from a destructor
  }
}

void AtomicDir::commit() {
  KILN_ASSERT(!committed_, "AtomicDir committed twice");
  std::error_code ec;
  if (fs::exists(target_, ec)) {
    if (!replace_existing_ && !is_empty_dir(target_))
      throw_error(ErrorKind::Io, target_.string(), "output directory appeared while writing",
                  "run again with a fresh -o directory");
    fs::remove_all(target_, ec);
    if (ec)
      throw_error(ErrorKind::Io, target_.string(), "cannot replace directory: " + ec.message(),
                  "check its permissions");
  }
  fs::rename(staging_, target_, ec);
  if (ec)
    throw_error(ErrorKind::Io, target_.string(), "cannot move output into place: " + ec.message(),
                "check that the output location is writable");
  committed_ = true;
}

}  // namespace kiln

// Output files and directories that appear whole or not at all.
//
// Writers fill a temporary sibling directory; commit() renames it into place.
// If the writer throws, the destructor removes the temporary directory, so a
// failure never leaves a half-written output behind.
#pragma once

#include <filesystem>
#include <string_view>

namespace kiln {

// Writes `bytes` to `path` through a temporary sibling and a rename, so a
// reader never sees half a file. Io error naming `path` if it cannot.
void write_file_atomically(const std::filesystem::path& path, std::string_view bytes);

class AtomicDir {
 public:
  // `target` may exist already only if it is an empty directory or
  // `replace_existing` is set (then it is replaced on commit()).
  explicit AtomicDir(std::filesystem::path target, bool replace_existing = false);
  ~AtomicDir();
  AtomicDir(const AtomicDir&) = delete;
  AtomicDir& operator=(const AtomicDir&) = delete;

  // Where to write while the directory is being built.
  const std::filesystem::path& staging() const { return staging_; }
  const std::filesystem::path& target() const { return target_; }

  // Moves the staging directory to the target. After this the object owns nothing.
  void commit();

 private:
  std::filesystem::path target_;
  std::filesystem::path staging_;
  bool replace_existing_;
  bool committed_ = false;
};

}  // namespace kiln

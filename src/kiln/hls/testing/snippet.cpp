#include "kiln/hls/testing/snippet.h"

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <random>
#include <sstream>

#include "kiln/support/error.h"

namespace kiln::hls::testing {
namespace {

namespace fs = std::filesystem;

std::string read_all(const fs::path& p) {
  std::ifstream f(p);
  std::ostringstream os;
  os << f.rdbuf();
  return os.str();
}

std::string quote(const std::string& s) {
  return "'" + s + "'";
}

fs::path fresh_dir() {
  std::random_device rd;
  for (int attempt = 0; attempt < 100; ++attempt) {
    fs::path d = fs::temp_directory_path() / ("kiln_snippet_" + std::to_string(rd()));
    if (fs::create_directory(d)) return d;
  }
  throw_error(ErrorKind::Io, "compile_and_run", "cannot create a temporary directory");
}

}  // namespace

std::string compile_and_run(const std::string& source,
                            const std::vector<std::string>& include_dirs) {
  const fs::path dir = fresh_dir();
  const fs::path src = dir / "main.cpp", exe = dir / "main", log = dir / "log.txt",
                 out = dir / "out.txt";
  std::ofstream(src) << source;
  std::string cmd = "g++ -std=c++14 -O1 -Wall -Wextra -Werror";
  for (const std::string& inc : include_dirs) cmd += " -I" + quote(inc);
  cmd += " -o " + quote(exe.string()) + " " + quote(src.string()) + " > " + quote(log.string()) +
         " 2>&1";
  if (std::system(cmd.c_str()) != 0) {
    const std::string msg = read_all(log);
    fs::remove_all(dir);
    throw_error(ErrorKind::Internal, "compile_and_run", "compilation failed:\n" + msg);
  }
  const std::string run =
      quote(exe.string()) + " > " + quote(out.string()) + " 2> " + quote(log.string());
  const int status = std::system(run.c_str());
  const std::string result = read_all(out);
  const std::string err = read_all(log);
  fs::remove_all(dir);
  if (status != 0)
    throw_error(ErrorKind::Internal, "compile_and_run",
                "program failed (status " + std::to_string(status) + "): " + err);
  return result;
}

std::string library_include_dir() {
  return KILN_LIBRARY_INCLUDE_DIR;  // set by the build (src/kiln/CMakeLists.txt)
}

}  // namespace kiln::hls::testing

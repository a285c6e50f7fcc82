// kiln layer library: loading large weight arrays from binary files in C
// simulation (never synthesized). Shipped into each project. C++14.
//
// A project writes every weight array as a header with exact literals; arrays
// larger than a threshold also get `weights/<name>.bin`, and C simulation
// (compiled with -DKILN_LOAD_WEIGHTS) declares those arrays without
// initializers and fills them from the .bin files, so the big headers need not
// be compiled. File format: the array's values in order, each as an IEEE-754
// binary64 in little-endian byte order (exact: W <= 53).
#ifndef KILN_WEIGHTS_IO_H_
#define KILN_WEIGHTS_IO_H_

#include <cstdio>
#include <cstring>
#include <string>

namespace kiln {

// Reads n values from `dir`/`file` into dst. Prints a one-line reason to
// stderr and returns false if the file is missing or has the wrong size.
template <class T>
bool load_weights_file(const char* dir, const char* file, T* dst, long n) {
  const std::string path = std::string(dir) + "/" + file;
  std::FILE* f = std::fopen(path.c_str(), "rb");
  if (!f) {
    std::fprintf(stderr, "%s: cannot open weight file\n", path.c_str());
    return false;
  }
  bool ok = true;
  for (long i = 0; i < n && ok; ++i) {
    unsigned char b[8];
    if (std::fread(b, 1, 8, f) != 8) {
      ok = false;
      break;
    }
    unsigned long long bits = 0;
    for (int k = 7; k >= 0; --k) bits = (bits << 8) | b[k];
    double v;
    std::memcpy(&v, &bits, sizeof v);
    dst[i] = T(v);
  }
  if (ok && std::fgetc(f) != EOF) ok = false;  // longer than expected
  std::fclose(f);
  if (!ok) std::fprintf(stderr, "%s: expected %ld values\n", path.c_str(), n);
  return ok;
}

}  // namespace kiln

#endif  // KILN_WEIGHTS_IO_H_

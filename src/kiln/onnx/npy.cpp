#include "kiln/onnx/npy.h"

#include <algorithm>
#include <cctype>
#include <cstring>
#include <fstream>
#include <map>
#include <optional>
#include <string>
#include <variant>
#include <vector>

#include "kiln/onnx/proto_util.h"
#include "kiln/onnx/tensor_proto.h"

namespace kiln::onnx_import {

namespace {

constexpr char kMagic[] = "\x93NUMPY";
constexpr std::size_t kMagicLen = 6;

[[noreturn]] void bad_npy(const std::filesystem::path& path, const std::string& what) {
  throw_error(ErrorKind::InvalidModel, path.string(), "malformed .npy file: " + what,
              "write it with numpy.save");
}

// The header is a Python dict literal such as
//   {'descr': '<f4', 'fortran_order': False, 'shape': (3, 4), }
// Only the value forms numpy writes are accepted: strings, True/False and
// tuples of integers.
using HeaderValue = std::variant<std::string, bool, std::vector<int64_t>>;

class HeaderParser {
 public:
  HeaderParser(const std::string& text, const std::filesystem::path& path)
      : s_(text), path_(path) {}

  std::map<std::string, HeaderValue> parse() {
    std::map<std::string, HeaderValue> out;
    skip_ws();
    expect('{');
    while (true) {
      skip_ws();
      if (peek() == '}') {
        ++pos_;
        break;
      }
      std::string key = parse_string();
      skip_ws();
      expect(':');
      skip_ws();
      out[key] = parse_value(key);
      skip_ws();
      if (peek() == ',') {
        ++pos_;
        continue;
      }
      expect('}');
      break;
    }
    return out;
  }

 private:
  char peek() const { return pos_ < s_.size() ? s_[pos_] : '\0'; }
  void skip_ws() {
    while (pos_ < s_.size() &&
           (s_[pos_] == ' ' || s_[pos_] == '\t' || s_[pos_] == '\n' || s_[pos_] == '\r'))
      ++pos_;
  }
  void expect(char c) {
    if (peek() != c) bad_npy(path_, std::string("header: expected '") + c + "'");
    ++pos_;
  }
  std::string parse_string() {
    const char quote = peek();
    if (quote != '\'' && quote != '"') bad_npy(path_, "header: expected a quoted string");
    ++pos_;
    const std::size_t end = s_.find(quote, pos_);
    if (end == std::string::npos) bad_npy(path_, "header: unterminated string");
    std::string v = s_.substr(pos_, end - pos_);
    pos_ = end + 1;
    return v;
  }
  int64_t parse_int() {
    if (!std::isdigit(static_cast<unsigned char>(peek())))
      bad_npy(path_, "header: expected a dimension");
    int64_t v = 0;
    while (std::isdigit(static_cast<unsigned char>(peek()))) {
      if (v > (kMaxTensorElements)) bad_npy(path_, "header: dimension too large");
      v = v * 10 + (s_[pos_++] - '0');
    }
    if (peek() == 'L') ++pos_;  // Python 2 long suffix
    return v;
  }
  HeaderValue parse_value(const std::string& key) {
    const char c = peek();
    if (c == '\'' || c == '"') return parse_string();
    if (s_.compare(pos_, 4, "True") == 0) {
      pos_ += 4;
      return true;
    }
    if (s_.compare(pos_, 5, "False") == 0) {
      pos_ += 5;
      return false;
    }
    if (c == '(') {
      ++pos_;
      std::vector<int64_t> dims;
      while (true) {
        skip_ws();
        if (peek() == ')') {
          ++pos_;
          break;
        }
        dims.push_back(parse_int());
        skip_ws();
        if (peek() == ',') {
          ++pos_;
          continue;
        }
        expect(')');
        break;
      }
      return dims;
    }
    if (c == '[' && key == "descr")
      throw_error(ErrorKind::Unsupported, path_.string(),
                  ".npy files with structured dtypes are not supported",
                  "save a plain numeric array");
    bad_npy(path_, "header: unexpected value for '" + key + "'");
  }

  const std::string& s_;
  const std::filesystem::path& path_;
  std::size_t pos_ = 0;
};

struct Descr {
  DType dtype;
  bool swap;  // big-endian data
};

Descr parse_descr(const std::string& descr, const std::filesystem::path& path) {
  if (descr.size() < 2)
    throw_error(ErrorKind::Unsupported, path.string(),
                ".npy dtype '" + descr + "' is not supported");
  const char order = descr[0];
  const std::string code = descr.substr(1);
  static const std::map<std::string, DType> kCodes = {
      {"f4", DType::Float32}, {"f8", DType::Float64}, {"i1", DType::Int8},  {"i2", DType::Int16},
      {"i4", DType::Int32},   {"i8", DType::Int64},   {"u1", DType::UInt8}, {"u2", DType::UInt16},
      {"u4", DType::UInt32},  {"u8", DType::UInt64},  {"b1", DType::Bool}};
  const auto it = kCodes.find(code);
  if (it == kCodes.end() || (order != '<' && order != '>' && order != '=' && order != '|'))
    throw_error(ErrorKind::Unsupported, path.string(),
                ".npy dtype '" + descr + "' is not supported",
                "kiln reads float32/float64, int8..int64, uint8..uint64 and bool arrays");
  return {it->second, order == '>' && dtype_size(it->second) > 1};
}

uint32_t read_le(const std::string& bytes, std::size_t at, std::size_t n) {
  uint32_t v = 0;
  for (std::size_t i = 0; i < n; ++i)
    v |= static_cast<uint32_t>(static_cast<unsigned char>(bytes[at + i])) << (8 * i);
  return v;
}

std::string npy_descr(DType t) {
  switch (t) {
    case DType::Float32: return "<f4";
    case DType::Float64: return "<f8";
    case DType::Int8: return "|i1";
    case DType::Int16: return "<i2";
    case DType::Int32: return "<i4";
    case DType::Int64: return "<i8";
    case DType::UInt8: return "|u1";
    case DType::UInt16: return "<u2";
    case DType::UInt32: return "<u4";
    case DType::UInt64: return "<u8";
    case DType::Bool: return "|b1";
  }
  KILN_ASSERT(false, "unknown DType");
  return "";
}

std::string lower_extension(const std::filesystem::path& path) {
  std::string ext = path.extension().string();
  for (char& c : ext) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return ext;
}

}  // namespace

Tensor read_npy(const std::filesystem::path& path) {
  const std::string bytes = read_file_bytes(path);
  if (bytes.size() < 10 || bytes.compare(0, kMagicLen, kMagic, kMagicLen) != 0)
    bad_npy(path, "missing the \\x93NUMPY magic");
  const int major = static_cast<unsigned char>(bytes[6]);
  const int minor = static_cast<unsigned char>(bytes[7]);
  if (major < 1 || major > 3 || minor != 0)
    throw_error(ErrorKind::Unsupported, path.string(),
                ".npy format version " + std::to_string(major) + "." + std::to_string(minor) +
                    " is not supported",
                "kiln reads versions 1.0, 2.0 and 3.0");
  const std::size_t len_bytes = major == 1 ? 2 : 4;
  if (bytes.size() < 8 + len_bytes) bad_npy(path, "truncated header");
  const std::size_t header_len = read_le(bytes, 8, len_bytes);
  const std::size_t data_start = 8 + len_bytes + header_len;
  if (bytes.size() < data_start) bad_npy(path, "truncated header");
  const std::string header = bytes.substr(8 + len_bytes, header_len);

  const auto dict = HeaderParser(header, path).parse();
  const auto descr_it = dict.find("descr");
  const auto fortran_it = dict.find("fortran_order");
  const auto shape_it = dict.find("shape");
  if (descr_it == dict.end() || fortran_it == dict.end() || shape_it == dict.end())
    bad_npy(path, "header lacks descr, fortran_order or shape");
  const auto* descr = std::get_if<std::string>(&descr_it->second);
  const auto* fortran = std::get_if<bool>(&fortran_it->second);
  const auto* dims = std::get_if<std::vector<int64_t>>(&shape_it->second);
  if (!descr || !fortran || !dims) bad_npy(path, "header has values of the wrong kind");
  if (*fortran)
    throw_error(ErrorKind::Unsupported, path.string(),
                "Fortran-order .npy arrays are not supported",
                "save a C-contiguous array (numpy.ascontiguousarray)");
  const Descr d = parse_descr(*descr, path);
  const Shape shape(dims->begin(), dims->end());
  check_shape_sane(shape, path.string());

  const std::size_t elem = dtype_size(d.dtype);
  const std::size_t need = static_cast<std::size_t>(shape_numel(shape)) * elem;
  const std::size_t have = bytes.size() - data_start;
  if (have != need)
    bad_npy(path, "data is " + std::to_string(have) + " bytes but " + std::string(*descr) + "[" +
                      shape_to_string(shape) + "] needs " + std::to_string(need));
  Tensor t(d.dtype, shape);
  const char* src = bytes.data() + data_start;
  if (d.dtype == DType::Bool) {
    auto out = t.data<bool>();
    for (std::size_t i = 0; i < need; ++i) out[i] = src[i] != 0;
  } else if (need > 0) {
    copy_bytes(t.raw().data(), src, need);
    if (d.swap) {
      auto raw = t.raw();
      for (std::size_t i = 0; i < need; i += elem) std::reverse(&raw[i], &raw[i] + elem);
    }
  }
  return t;
}

void write_npy(const std::filesystem::path& path, const Tensor& tensor) {
  std::string header =
      "{'descr': '" + npy_descr(tensor.dtype()) + "', 'fortran_order': False, 'shape': (";
  for (std::size_t i = 0; i < tensor.shape().size(); ++i) {
    if (i) header += ", ";
    header += std::to_string(tensor.shape()[i]);
  }
  if (tensor.shape().size() == 1) header += ",";
  header += "), }";
  // Pad with spaces and a final newline so the data starts 64-byte aligned.
  const std::size_t prefix = kMagicLen + 2 + 2;
  const std::size_t total = (prefix + header.size() + 1 + 63) / 64 * 64;
  header.append(total - prefix - header.size() - 1, ' ');
  header += '\n';
  KILN_ASSERT(header.size() <= 0xFFFF, "npy header too long for format 1.0");

  std::string out(kMagic, kMagicLen);
  out += '\x01';
  out += '\x00';
  out += static_cast<char>(header.size() & 0xFF);
  out += static_cast<char>((header.size() >> 8) & 0xFF);
  out += header;
  const auto raw = tensor.raw();
  out.append(reinterpret_cast<const char*>(raw.data()), raw.size());

  std::ofstream f(path, std::ios::binary | std::ios::trunc);
  if (!f) throw_error(ErrorKind::Io, path.string(), "cannot open file for writing");
  f.write(out.data(), static_cast<std::streamsize>(out.size()));
  f.close();
  if (!f) throw_error(ErrorKind::Io, path.string(), "error while writing file");
}

Tensor read_tensor_file(const std::filesystem::path& path) {
  const std::string ext = lower_extension(path);
  if (ext == ".npy") return read_npy(path);
  if (ext == ".pb") return read_tensor_pb(path);
  throw_error(ErrorKind::Usage, path.string(),
              "unknown tensor file extension '" + path.extension().string() + "'",
              "use .npy (numpy.save) or .pb (onnx TensorProto)");
}

void write_tensor_file(const std::filesystem::path& path, const Tensor& tensor,
                       const std::string& name) {
  const std::string ext = lower_extension(path);
  if (ext == ".npy") return write_npy(path, tensor);
  if (ext == ".pb") return write_tensor_pb(path, tensor, name);
  throw_error(ErrorKind::Usage, path.string(),
              "unknown tensor file extension '" + path.extension().string() + "'",
              "use .npy or .pb");
}

}  // namespace kiln::onnx_import

#include "kiln/onnx/tensor_proto.h"

#include <bit>
#include <cstring>
#include <fstream>
#include <limits>
#include <optional>
#include <system_error>

#include "kiln/onnx/proto_util.h"

namespace kiln::onnx_import {

static_assert(std::endian::native == std::endian::little,
              "ONNX raw_data is little-endian; kiln copies it as is");

namespace {

std::string tensor_where(const std::string& where, const std::string& name) {
  if (!where.empty()) return where;
  return "tensor '" + name + "'";
}

[[noreturn]] void count_mismatch(const std::string& where, const std::string& name,
                                 std::size_t count, const Shape& shape) {
  throw_error(ErrorKind::InvalidModel, where,
              "tensor '" + name + "' has " + std::to_string(count) + " values but shape " +
                  shape_to_string(shape) + " needs " + std::to_string(shape_numel(shape)),
              "the model file is inconsistent; re-export it");
}

// Copies little-endian element bytes into a tensor of `dtype`, normalizing
// bools (any non-zero byte is true) so no invalid bool representation exists.
Tensor tensor_from_bytes(DType dtype, const Shape& shape, const char* data, std::size_t size,
                         const std::string& where, const std::string& name) {
  const std::size_t elem = dtype_size(dtype);
  if (size % elem != 0 || size / elem != static_cast<std::size_t>(shape_numel(shape)))
    throw_error(ErrorKind::InvalidModel, where,
                "tensor '" + name + "' has " + std::to_string(size) + " bytes of data but " +
                    std::string(dtype_name(dtype)) + "[" + shape_to_string(shape) + "] needs " +
                    std::to_string(static_cast<std::size_t>(shape_numel(shape)) * elem),
                "the model file is inconsistent; re-export it");
  Tensor t(dtype, shape);
  if (dtype == DType::Bool) {
    auto out = t.data<bool>();
    for (std::size_t i = 0; i < size; ++i) out[i] = data[i] != 0;
  } else if (size > 0) {
    copy_bytes(t.raw().data(), data, size);
  }
  return t;
}

// Fills a tensor from one of the typed repeated fields.
template <class Field>
Tensor tensor_from_field(DType dtype, const Shape& shape, const Field& field,
                         const std::string& where, const std::string& name) {
  if (static_cast<int64_t>(field.size()) != shape_numel(shape))
    count_mismatch(where, name, static_cast<std::size_t>(field.size()), shape);
  Tensor t(dtype, shape);
  visit_dtype(dtype, [&](auto v) {
    using T = decltype(v);
    auto out = t.data<T>();
    for (int i = 0; i < field.size(); ++i) {
      if constexpr (std::is_same_v<T, bool>) {
        out[static_cast<std::size_t>(i)] = field.Get(i) != 0;
      } else {
        // int32_data holds int8/int16/uint8/uint16 too; the narrowing is the
        // ONNX storage convention, uint64_data likewise holds uint32.
        out[static_cast<std::size_t>(i)] = static_cast<T>(field.Get(i));
      }
    }
  });
  return t;
}

// Resolves an external_data location against base_dir, refusing absolute
// paths and paths that leave the model's directory.
std::filesystem::path resolve_external(const std::filesystem::path& base_dir,
                                       const std::string& location, const std::string& where,
                                       const std::string& name) {
  namespace fs = std::filesystem;
  const fs::path rel(location);
  if (location.empty())
    throw_error(ErrorKind::InvalidModel, where,
                "tensor '" + name + "' has external data without a location");
  if (rel.is_absolute() || rel.has_root_name() || rel.has_root_directory())
    throw_error(ErrorKind::InvalidModel, where,
                "tensor '" + name + "' has an absolute external data location '" + location + "'",
                "external data must be a path relative to the model's directory");
  const fs::path normal = rel.lexically_normal();
  if (!normal.empty() && *normal.begin() == "..")
    throw_error(ErrorKind::InvalidModel, where,
                "tensor '" + name + "' has external data location '" + location +
                    "' outside the model's directory",
                "external data files must sit in the model's directory or below it");
  const fs::path full = base_dir / normal;
  // A symlink could still lead outside; compare canonical paths when both exist.
  std::error_code ec1, ec2;
  const fs::path canon_base = fs::weakly_canonical(base_dir.empty() ? "." : base_dir, ec1);
  const fs::path canon_full = fs::weakly_canonical(full, ec2);
  if (!ec1 && !ec2) {
    const fs::path inside = canon_full.lexically_relative(canon_base);
    if (inside.empty() || *inside.begin() == "..")
      throw_error(ErrorKind::InvalidModel, where,
                  "tensor '" + name + "' has external data location '" + location +
                      "' that resolves outside the model's directory",
                  "external data files must sit in the model's directory or below it");
  }
  return full;
}

int64_t parse_external_int(const std::string& text, const std::string& key,
                           const std::string& where, const std::string& name) {
  int64_t v = 0;
  bool ok = !text.empty();
  for (char c : text) {
    if (c < '0' || c > '9' || v > (std::numeric_limits<int64_t>::max() - 9) / 10) {
      ok = false;
      break;
    }
    v = v * 10 + (c - '0');
  }
  if (!ok)
    throw_error(ErrorKind::InvalidModel, where,
                "tensor '" + name + "' has external data " + key + " '" + text +
                    "' that is not a non-negative integer");
  return v;
}

std::string read_external(const ::onnx::TensorProto& proto, const std::filesystem::path& base_dir,
                          std::size_t expected_bytes, const std::string& where) {
  const std::string& name = proto.name();
  std::string location;
  int64_t offset = 0;
  std::optional<int64_t> length;
  for (const auto& kv : proto.external_data()) {
    if (kv.key() == "location")
      location = kv.value();
    else if (kv.key() == "offset")
      offset = parse_external_int(kv.value(), "offset", where, name);
    else if (kv.key() == "length")
      length = parse_external_int(kv.value(), "length", where, name);
    // "checksum" and unknown keys are informational.
  }
  const std::filesystem::path file = resolve_external(base_dir, location, where, name);
  std::ifstream in(file, std::ios::binary);
  std::error_code ec;
  if (!in || std::filesystem::is_directory(file, ec))
    throw_error(ErrorKind::InvalidModel, where,
                "tensor '" + name + "': cannot open its external data file '" + file.string() + "'",
                "keep the external data files next to the model");
  const auto file_size = std::filesystem::file_size(file, ec);
  if (ec)
    throw_error(ErrorKind::InvalidModel, where,
                "tensor '" + name + "': cannot read the size of '" + file.string() + "'");
  const int64_t want =
      length ? *length : static_cast<int64_t>(file_size) - std::min<int64_t>(offset, file_size);
  if (want != static_cast<int64_t>(expected_bytes))
    throw_error(ErrorKind::InvalidModel, where,
                "tensor '" + name + "' has " + std::to_string(want) +
                    " bytes of external data but its type needs " + std::to_string(expected_bytes),
                "the model and its external data file do not match");
  if (static_cast<uint64_t>(offset) > file_size ||
      file_size - static_cast<uint64_t>(offset) < static_cast<uint64_t>(want))
    throw_error(ErrorKind::InvalidModel, where,
                "tensor '" + name + "': external data file '" + file.string() + "' is too short (" +
                    std::to_string(file_size) + " bytes, need " + std::to_string(offset + want) +
                    ")",
                "the external data file is truncated or belongs to another model");
  std::string bytes(static_cast<std::size_t>(want), '\0');
  in.seekg(offset);
  in.read(bytes.data(), want);
  if (!in)
    throw_error(ErrorKind::InvalidModel, where,
                "tensor '" + name + "': error reading external data file '" + file.string() + "'");
  return bytes;
}

}  // namespace

Tensor tensor_from_proto(const ::onnx::TensorProto& proto, const std::filesystem::path& base_dir,
                         const std::string& where_in) {
  using TP = ::onnx::TensorProto;
  const std::string where = tensor_where(where_in, proto.name());
  const std::string& name = proto.name();
  if (proto.has_segment())
    throw_error(ErrorKind::Unsupported, where,
                "tensor '" + name + "' is stored in segments, which kiln does not support",
                "re-save the model without segmented tensors");
  const DType dtype = dtype_from_onnx(proto.data_type(), where);
  Shape shape(proto.dims().begin(), proto.dims().end());
  check_shape_sane(shape, where);
  const std::size_t bytes_needed = static_cast<std::size_t>(shape_numel(shape)) * dtype_size(dtype);

  if (proto.data_location() == TP::EXTERNAL) {
    const std::string bytes = read_external(proto, base_dir, bytes_needed, where);
    return tensor_from_bytes(dtype, shape, bytes.data(), bytes.size(), where, name);
  }
  if (proto.has_raw_data())
    return tensor_from_bytes(dtype, shape, proto.raw_data().data(), proto.raw_data().size(), where,
                             name);
  switch (dtype) {
    case DType::Float32: return tensor_from_field(dtype, shape, proto.float_data(), where, name);
    case DType::Float64: return tensor_from_field(dtype, shape, proto.double_data(), where, name);
    case DType::Int64: return tensor_from_field(dtype, shape, proto.int64_data(), where, name);
    case DType::UInt32:
    case DType::UInt64: return tensor_from_field(dtype, shape, proto.uint64_data(), where, name);
    case DType::Int8:
    case DType::Int16:
    case DType::Int32:
    case DType::UInt8:
    case DType::UInt16:
    case DType::Bool: return tensor_from_field(dtype, shape, proto.int32_data(), where, name);
  }
  KILN_ASSERT(false, "unhandled DType");
  return {};
}

void tensor_to_proto(const Tensor& tensor, const std::string& name, ::onnx::TensorProto* proto) {
  proto->Clear();
  proto->set_name(name);
  for (int64_t d : tensor.shape()) proto->add_dims(d);
  proto->set_data_type(onnx_from_dtype(tensor.dtype()));
  const auto raw = tensor.raw();
  proto->set_raw_data(std::string(reinterpret_cast<const char*>(raw.data()), raw.size()));
}

Tensor read_tensor_pb(const std::filesystem::path& path, std::string* name) {
  const std::string bytes = read_file_bytes(path);
  ::onnx::TensorProto proto;
  if (!parse_proto(bytes, &proto))
    throw_error(ErrorKind::InvalidModel, path.string(),
                "not a TensorProto file (protobuf parse failed)",
                "expected a serialized onnx.TensorProto such as input_0.pb");
  // Protobuf accepts many byte strings (even an empty file) as a message with
  // no fields; a real tensor always declares its element type.
  if (proto.data_type() == ::onnx::TensorProto::UNDEFINED)
    throw_error(ErrorKind::InvalidModel, path.string(), "not a TensorProto file (no element type)",
                "expected a serialized onnx.TensorProto such as input_0.pb");
  Tensor t = tensor_from_proto(proto, path.parent_path(), path.string());
  if (name) *name = proto.name();
  return t;
}

void write_tensor_pb(const std::filesystem::path& path, const Tensor& tensor,
                     const std::string& name) {
  ::onnx::TensorProto proto;
  tensor_to_proto(tensor, name, &proto);
  std::string bytes;
  if (!proto.SerializeToString(&bytes))
    throw_error(ErrorKind::Internal, path.string(), "cannot serialize tensor '" + name + "'");
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  if (!out) throw_error(ErrorKind::Io, path.string(), "cannot open file for writing");
  out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
  out.close();
  if (!out) throw_error(ErrorKind::Io, path.string(), "error while writing file");
}

}  // namespace kiln::onnx_import

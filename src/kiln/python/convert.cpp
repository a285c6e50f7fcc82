#include "kiln/python/convert.h"

#include <cstring>

#include "kiln/support/error.h"

namespace kiln::python {

py::object to_python(const nlohmann::json& j) {
  switch (j.type()) {
    case nlohmann::json::value_t::null: return py::none();
    case nlohmann::json::value_t::boolean: return py::bool_(j.get<bool>());
    case nlohmann::json::value_t::number_integer: return py::int_(j.get<int64_t>());
    case nlohmann::json::value_t::number_unsigned: return py::int_(j.get<uint64_t>());
    case nlohmann::json::value_t::number_float: return py::float_(j.get<double>());
    case nlohmann::json::value_t::string: return py::str(j.get<std::string>());
    case nlohmann::json::value_t::array: {
      py::list l;
      for (const nlohmann::json& x : j) l.append(to_python(x));
      return std::move(l);
    }
    case nlohmann::json::value_t::object: {
      py::dict d;
      for (const auto& [k, v] : j.items()) d[py::str(k)] = to_python(v);
      return std::move(d);
    }
    default: return py::none();
  }
}

nlohmann::json to_json(const py::handle& o, const std::string& where) {
  if (o.is_none()) return nullptr;
  if (py::isinstance<py::bool_>(o)) return o.cast<bool>();
  if (py::isinstance<py::int_>(o)) return o.cast<int64_t>();
  if (py::isinstance<py::float_>(o)) return o.cast<double>();
  if (py::isinstance<py::str>(o)) return o.cast<std::string>();
  if (py::isinstance<py::dict>(o)) {
    nlohmann::json j = nlohmann::json::object();
    for (const auto& [k, v] : o.cast<py::dict>()) {
      const std::string key = py::str(k).cast<std::string>();
      j[key] = to_json(v, where + "." + key);
    }
    return j;
  }
  if (py::isinstance<py::list>(o) || py::isinstance<py::tuple>(o)) {
    nlohmann::json j = nlohmann::json::array();
    std::size_t i = 0;
    for (const auto& v : o) j.push_back(to_json(v, where + "[" + std::to_string(i++) + "]"));
    return j;
  }
  throw_error(ErrorKind::InvalidModel, where,
              "a value of Python type " +
                  py::str(o.get_type().attr("__name__")).cast<std::string>() +
                  " has no place in a configuration",
              "use dicts, lists, strings, numbers and booleans");
}

DType dtype_of(const py::array& a, const std::string& where) {
  const std::string name = py::str(a.dtype().attr("name")).cast<std::string>();
  for (const auto& [t, n] : EnumNames<DType>::kNames)
    if (n == name) return t;
  throw_error(ErrorKind::InvalidModel, where, "an array of dtype " + name + " has no kiln type",
              "convert it, e.g. with .astype(numpy.float32)");
}

Tensor tensor_of(const py::array& a, const std::string& where) {
  const DType t = dtype_of(a, where);
  // One copy through numpy when the array is not C-contiguous.
  const py::array c = py::array::ensure(a, py::array::c_style);
  Shape shape(c.shape(), c.shape() + c.ndim());
  Tensor out(t, shape);
  KILN_ASSERT(static_cast<std::size_t>(c.nbytes()) == out.byte_size(),
              where + ": the array's bytes do not match its shape");
  if (out.byte_size() > 0) std::memcpy(out.raw().data(), c.data(), out.byte_size());
  return out;
}

py::array array_of(const Tensor& t) {
  std::vector<py::ssize_t> shape(t.shape().begin(), t.shape().end());
  py::array a(py::dtype(std::string(dtype_name(t.dtype()))), shape);
  if (t.byte_size() > 0) std::memcpy(a.mutable_data(), t.raw().data(), t.byte_size());
  return a;
}

}  // namespace kiln::python

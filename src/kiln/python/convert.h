// Conversions between kiln's data and Python's (private to the module): JSON
// to Python objects, numpy arrays to and from tensors (one copy of the
// buffer, never element by element).
#pragma once

#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>

#include <nlohmann/json.hpp>

#include "kiln/graph/tensor.h"

namespace kiln::python {

namespace py = pybind11;

// null, bools, numbers, strings, arrays and objects as None, bool, int,
// float, str, list and dict.
py::object to_python(const nlohmann::json& j);

// A dict / list / scalar of plain Python data as JSON (TypeError-like
// kiln::Error(InvalidModel) naming `where` for anything else).
nlohmann::json to_json(const py::handle& o, const std::string& where);

// The array's dtype as kiln's (InvalidModel naming `where` for one kiln
// does not have).
DType dtype_of(const py::array& a, const std::string& where);

// A tensor holding a copy of the array (C order; any strides are copied
// through numpy once).
Tensor tensor_of(const py::array& a, const std::string& where);

// A new array holding a copy of the tensor.
py::array array_of(const Tensor& t);

}  // namespace kiln::python

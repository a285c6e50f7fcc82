#include "kiln/fpga/resources.h"

#include <cmath>

#include "kiln/support/error.h"

namespace kiln::fpga {

Resources& Resources::operator+=(const Resources& o) {
  for (const ResourceField& f : kResourceFields) this->*f.member += o.*f.member;
  return *this;
}

Resources& Resources::operator*=(double k) {
  for (const ResourceField& f : kResourceFields) this->*f.member *= k;
  return *this;
}

nlohmann::json to_json(const Resources& r) {
  nlohmann::json j = nlohmann::json::object();
  for (const ResourceField& f : kResourceFields) {
    const double v = r.*f.member;
    if (std::nearbyint(v) == v && std::abs(v) < 9.0e15)
      j[f.key] = static_cast<int64_t>(v);
    else
      j[f.key] = v;
  }
  return j;
}

Resources resources_from_json(const nlohmann::json& j, const std::string& where) {
  Resources r;
  if (!j.is_object()) throw_error(ErrorKind::InvalidModel, where, "resources are not an object");
  for (const ResourceField& f : kResourceFields) {
    if (!j.contains(f.key)) continue;
    if (!j[f.key].is_number())
      throw_error(ErrorKind::InvalidModel, where, std::string("'") + f.key + "' is not a number");
    r.*f.member = j[f.key].get<double>();
  }
  return r;
}

}  // namespace kiln::fpga

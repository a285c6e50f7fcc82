#include "kiln/rtl/stage/calibration.h"

namespace kiln::rtl {

namespace {
#include "calibration_coefficients.inc"  // next to this file: the fitted data
}  // namespace

CostTerms& CostTerms::operator+=(const CostTerms& o) {
  for (std::size_t i = 0; i < kLutTerms; ++i) lut[i] += o.lut[i];
  for (std::size_t i = 0; i < kFfTerms; ++i) ff[i] += o.ff[i];
  return *this;
}

double CostTerms::raw_lut() const {
  double s = 0;
  for (double v : lut) s += v;
  return s;
}

double CostTerms::raw_ff() const {
  double s = 0;
  for (double v : ff) s += v;
  return s;
}

double CostTerms::lut_estimate() const {
  double s = 0;
  for (std::size_t i = 0; i < kLutTerms; ++i) s += kLutCoefficients[i] * lut[i];
  return s;
}

double CostTerms::ff_estimate() const {
  double s = 0;
  for (std::size_t i = 0; i < kFfTerms; ++i) s += kFfCoefficients[i] * ff[i];
  return s;
}

double lut_coefficient(LutTerm t) {
  return kLutCoefficients[static_cast<std::size_t>(t)];
}

double ff_coefficient(FfTerm t) {
  return kFfCoefficients[static_cast<std::size_t>(t)];
}

}  // namespace kiln::rtl

#include "kiln/onnx/import.h"

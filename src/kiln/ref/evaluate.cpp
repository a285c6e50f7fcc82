#include "kiln/ref/evaluate.h"

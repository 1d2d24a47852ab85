// <ATen/core/List.h> — c10::List<T> (c10/util/List.h; see docs/compat.md for
// how it converts to and from c10::IValue).
#pragma once

#include "c10/util/List.h"  // IWYU pragma: export

// The C runtime API header: weft's runtime API is all in <weft.hpp>.
#pragma once
#include <weft.hpp>

// The race check's callbacks, once per program (WEFT_SANITIZE=race adds
// this file to every target that links weft::weft).
#include "weft/detail/checks/race_check_callbacks.hpp"

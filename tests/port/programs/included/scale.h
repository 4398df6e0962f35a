// Needs no port: the ported headers read it where it is.
#pragma once
constexpr float device_scale = 2.0f;

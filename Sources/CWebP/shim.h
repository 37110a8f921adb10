#pragma once
#include <webp/decode.h>
#include <webp/demux.h>
// The encoder is in the same library; only the tests and the fuzz corpus's seeds use it.
#include <webp/encode.h>

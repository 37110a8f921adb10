#pragma once
// libwebp's encoder, for the Deep Zoom target's WebP tile seeds only.
#include <webp/encode.h>

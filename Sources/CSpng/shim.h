#pragma once
#include <spng.h>

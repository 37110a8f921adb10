#pragma once
#include <cairo.h>
// Tests and the benchmark write PDFs and SVGs with cairo to render them again.
#include <cairo-pdf.h>
#include <cairo-svg.h>

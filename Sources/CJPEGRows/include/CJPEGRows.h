#pragma once
// libjpeg's scanline API behind a setjmp error manager: a corrupt or truncated JPEG returns an
// error with libjpeg's message instead of exiting the process (libjpeg's default error_exit).
#include <stddef.h>
#include <stdio.h>

/// A JPEG being decoded row by row into RGB bytes (3 per pixel); a CMYK or YCCK file too,
/// converted here (libjpeg converts CMYK to nothing else).
typedef struct jpeg_rows jpeg_rows;

/// Reads the header of the JPEG in `file` (left open; the caller closes it after
/// `jpeg_rows_close`). Returns NULL on failure with libjpeg's message in `message`.
jpeg_rows *jpeg_rows_open(FILE *file, char *message, size_t message_size);

/// The image's width and height in pixels, from the header.
int jpeg_rows_image_width(const jpeg_rows *rows);
int jpeg_rows_image_height(const jpeg_rows *rows);
/// Whether the file is progressive: starting then buffers the whole image's coefficients.
int jpeg_rows_progressive(const jpeg_rows *rows);

/// Starts decompressing to RGB, each side scaled by 1/`denominator` (1, 2, 4 or 8) in the
/// IDCT. Returns 0, or -1 with libjpeg's message.
int jpeg_rows_start(jpeg_rows *rows, int denominator, char *message, size_t message_size);
/// The rows' width and height once started (the scaled size, rounded up).
int jpeg_rows_width(const jpeg_rows *rows);
int jpeg_rows_height(const jpeg_rows *rows);

/// Decodes up to `count` rows into `rows[0..count)`, each `3 × width` bytes. Returns how many
/// were decoded (0 after the last), or -1 with libjpeg's message; warnings (a premature end, corrupt
/// data libjpeg would paper over with grey) are errors too.
int jpeg_rows_read(jpeg_rows *rows, unsigned char **out, int count, char *message, size_t message_size);

/// Skips up to `count` rows without producing them (libjpeg-turbo's jpeg_skip_scanlines):
/// returns how many were skipped, or -1 with libjpeg's message.
int jpeg_rows_skip(jpeg_rows *rows, int count, char *message, size_t message_size);

/// Frees the decoder (safe after an error).
void jpeg_rows_close(jpeg_rows *rows);

#include "CJPEGRows.h"
#include <jpeglib.h>
#include <setjmp.h>
#include <stdlib.h>
#include <string.h>

// Progressive files with more scans than this are refused (as TurboJPEG's TJFLAG_LIMITSCANS):
// each scan rereads the whole coefficient buffer, so thousands of tiny scans are a CPU bomb.
enum { max_scans = 500 };

struct jpeg_rows {
    struct jpeg_decompress_struct info;
    struct jpeg_error_mgr error;
    struct jpeg_progress_mgr progress;
    jmp_buf escape;
    char message[JMSG_LENGTH_MAX];
    // A CMYK or YCCK file: libjpeg gives CMYK rows (it converts none to RGB), read into
    // `cmyk_row` and converted here. `inverted`: stored as Photoshop stores it (255 = no ink),
    // which its Adobe marker says.
    int cmyk;
    int inverted;
    unsigned char *cmyk_row;
};

static void fail(j_common_ptr info) {
    struct jpeg_rows *rows = (struct jpeg_rows *)info->client_data;
    info->err->format_message(info, rows->message);
    longjmp(rows->escape, 1);
}

// Level -1 is a warning (corrupt data, premature end): libjpeg would go on and fill grey.
static void message(j_common_ptr info, int level) {
    if (level < 0) fail(info);
}

static void progress(j_common_ptr info) {
    struct jpeg_rows *rows = (struct jpeg_rows *)info->client_data;
    j_decompress_ptr decompress = (j_decompress_ptr)info;
    if (info->is_decompressor && decompress->input_scan_number > max_scans) {
        snprintf(rows->message, sizeof rows->message, "more than %d progressive scans", max_scans);
        longjmp(rows->escape, 1);
    }
}

static void copy_message(const struct jpeg_rows *rows, char *out, size_t size) {
    if (out && size > 0) snprintf(out, size, "%s", rows->message);
}

jpeg_rows *jpeg_rows_open(FILE *file, char *out, size_t out_size) {
    struct jpeg_rows *rows = calloc(1, sizeof *rows);
    if (!rows) {
        if (out && out_size > 0) snprintf(out, out_size, "out of memory");
        return NULL;
    }
    rows->info.err = jpeg_std_error(&rows->error);
    rows->error.error_exit = fail;
    rows->error.emit_message = message;
    rows->info.client_data = rows;
    if (setjmp(rows->escape)) {
        copy_message(rows, out, out_size);
        jpeg_destroy_decompress(&rows->info);
        free(rows);
        return NULL;
    }
    jpeg_create_decompress(&rows->info);
    rows->progress.progress_monitor = progress;
    rows->info.progress = &rows->progress;
    jpeg_stdio_src(&rows->info, file);
    jpeg_read_header(&rows->info, TRUE);
    return rows;
}

int jpeg_rows_start(jpeg_rows *rows, int denominator, char *message_out, size_t size) {
    if (setjmp(rows->escape)) {
        copy_message(rows, message_out, size);
        return -1;
    }
    if (rows->info.jpeg_color_space == JCS_CMYK || rows->info.jpeg_color_space == JCS_YCCK) {
        rows->info.out_color_space = JCS_CMYK;
        rows->cmyk = 1;
        rows->inverted = rows->info.saw_Adobe_marker;
    } else {
        rows->info.out_color_space = JCS_RGB;
    }
    // libjpeg-turbo's scaled IDCT: 1/2, 1/4 or 1/8 of each side for little more than the
    // entropy decoding.
    rows->info.scale_num = 1;
    rows->info.scale_denom = (unsigned int)denominator;
    jpeg_start_decompress(&rows->info);
    if (rows->cmyk) {
        rows->cmyk_row = malloc((size_t)rows->info.output_width * 4);
        if (!rows->cmyk_row) {
            if (message_out && size > 0) snprintf(message_out, size, "out of memory for a row of %u CMYK pixels", rows->info.output_width);
            return -1;
        }
    }
    return 0;
}

// One CMYK row as RGB: each channel the light its ink and the black let through (the
// conversion libjpeg-turbo's own tools and browsers make, without a colour profile).
static void cmyk_to_rgb(const struct jpeg_rows *rows, unsigned char *out) {
    const unsigned char *in = rows->cmyk_row;
    for (JDIMENSION x = 0; x < rows->info.output_width; x++, in += 4, out += 3) {
        unsigned k = rows->inverted ? in[3] : 255u - in[3];
        for (int i = 0; i < 3; i++) {
            unsigned c = rows->inverted ? in[i] : 255u - in[i];
            out[i] = (unsigned char)((c * k + 127) / 255);
        }
    }
}

int jpeg_rows_image_width(const jpeg_rows *rows) { return (int)rows->info.image_width; }
int jpeg_rows_image_height(const jpeg_rows *rows) { return (int)rows->info.image_height; }
int jpeg_rows_width(const jpeg_rows *rows) { return (int)rows->info.output_width; }
int jpeg_rows_height(const jpeg_rows *rows) { return (int)rows->info.output_height; }
int jpeg_rows_progressive(const jpeg_rows *rows) { return jpeg_has_multiple_scans((j_decompress_ptr)&rows->info) ? 1 : 0; }

int jpeg_rows_skip(jpeg_rows *rows, int count, char *message_out, size_t size) {
    if (setjmp(rows->escape)) {
        copy_message(rows, message_out, size);
        return -1;
    }
    int left = (int)(rows->info.output_height - rows->info.output_scanline);
    if (count > left) count = left;
    // Entropy decoding only where libjpeg-turbo can (no IDCT, no colour conversion).
    return count > 0 ? (int)jpeg_skip_scanlines(&rows->info, (JDIMENSION)count) : 0;
}

int jpeg_rows_read(jpeg_rows *rows, unsigned char **out, int count, char *message_out, size_t size) {
    if (setjmp(rows->escape)) {
        copy_message(rows, message_out, size);
        return -1;
    }
    int done = 0;
    while (done < count && rows->info.output_scanline < rows->info.output_height) {
        if (rows->cmyk) {
            JSAMPROW row = rows->cmyk_row;
            if (jpeg_read_scanlines(&rows->info, &row, 1) == 1) cmyk_to_rgb(rows, out[done++]);
        } else {
            done += (int)jpeg_read_scanlines(&rows->info, out + done, (JDIMENSION)(count - done));
        }
    }
    return done;
}

void jpeg_rows_close(jpeg_rows *rows) {
    if (!rows) return;
    // Not jpeg_finish_decompress: it would read (and judge) the rest of the file; the caller
    // already has every row it wanted.
    jpeg_destroy_decompress(&rows->info);
    free(rows->cmyk_row);
    free(rows);
}

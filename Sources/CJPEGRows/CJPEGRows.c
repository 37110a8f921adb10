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
    rows->info.out_color_space = JCS_RGB;
    // libjpeg-turbo's scaled IDCT: 1/2, 1/4 or 1/8 of each side for little more than the
    // entropy decoding.
    rows->info.scale_num = 1;
    rows->info.scale_denom = (unsigned int)denominator;
    jpeg_start_decompress(&rows->info);
    return 0;
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
        done += (int)jpeg_read_scanlines(&rows->info, out + done, (JDIMENSION)(count - done));
    }
    return done;
}

void jpeg_rows_close(jpeg_rows *rows) {
    if (!rows) return;
    // Not jpeg_finish_decompress: it would read (and judge) the rest of the file; the caller
    // already has every row it wanted.
    jpeg_destroy_decompress(&rows->info);
    free(rows);
}

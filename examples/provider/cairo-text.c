/* A flickd content provider in C with cairo: a long catalogue of headings and paragraphs.
 *
 * flickd asks for tiles; each is drawn with cairo straight into its slot of the shared pool, at
 * the tile's own scale, so zoomed-out text is small text rendered sharp, not a big one shrunk,
 * and zoomed in (it declares a level of detail above zoom 1) text is drawn again, sharp.
 * Plain POSIX sockets, memfd, SCM_RIGHTS; a line reader and a JSON field finder just big enough
 * for the fields this app reads. See README.md beside this file, and docs/protocol.md.
 *
 *   make -C examples/provider && examples/provider/cairo-text [--socket PATH] [--exit-after S]
 */
#define _GNU_SOURCE
#include <cairo.h>
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <poll.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

enum { PROTOCOL_VERSION = 2, WIDTH = 1920, HEIGHT = 6000, MARGIN = 120, MAX_SLOTS = 64 };

static void die(const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    fputs("cairo-text: ", stderr);
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
    va_end(ap);
    exit(1);
}

/* ---- The page: laid out once, at scale 1 --------------------------------------------------- */

enum { MAX_LINES = 512, LINE_CHARS = 256, MAX_SECTIONS = 64 };
struct line { double y; int heading; char text[LINE_CHARS]; };   /* y: the baseline */
static struct line lines[MAX_LINES];
static int nlines;
static struct { double y; const char *title; } sections[MAX_SECTIONS];
static int nsections;

static const double BODY_SIZE = 28, BODY_LEAD = 42, HEAD_SIZE = 52, TITLE_SIZE = 96;
static const char *TITLES[] = {"Hand tools", "Garden", "Lighting", "Kitchen", "Textiles",
    "Stationery", "Bicycles", "Music", "Maps and atlases", "Clocks", "Ceramics", "Toys and games"};
static const char *WORDS[] = {"oak", "handle", "steel", "made", "by", "hand", "in", "small",
    "workshops", "each", "piece", "is", "tested", "and", "signed", "with", "a", "lifetime",
    "guarantee", "the", "finish", "varies", "from", "batch", "to", "batch", "light", "sturdy",
    "repairable", "parts", "are", "kept", "for", "twenty", "years", "ask", "at", "the", "counter",
    "about", "sizes", "colours", "delivery", "within", "three", "days", "of", "your", "order"};

static unsigned rng = 12345;   /* a fixed LCG: the same catalogue on every run */
static unsigned next_rand(unsigned n) { rng = rng * 1103515245u + 12345u; return (rng >> 16) % n; }

/* Hint metrics off: glyph advances then scale exactly with the font size, so lines broken at
 * scale 1 fit at every scale, and a line's glyphs land where its neighbour tile expects them. */
static void set_font(cairo_t *cr, int heading, double size) {
    cairo_font_options_t *o = cairo_font_options_create();
    cairo_font_options_set_hint_metrics(o, CAIRO_HINT_METRICS_OFF);
    cairo_set_font_options(cr, o);
    cairo_font_options_destroy(o);
    cairo_select_font_face(cr, heading ? "sans-serif" : "serif", CAIRO_FONT_SLANT_NORMAL,
                           heading ? CAIRO_FONT_WEIGHT_BOLD : CAIRO_FONT_WEIGHT_NORMAL);
    cairo_set_font_size(cr, size);
}

static int add_line(double y, int heading, const char *text) {
    if (nlines == MAX_LINES || y > HEIGHT - MARGIN) return 0;
    lines[nlines].y = y;
    lines[nlines].heading = heading;
    snprintf(lines[nlines].text, LINE_CHARS, "%s", text);
    nlines++;
    return 1;
}

/* Generated paragraphs, word-wrapped to the text column with cairo's own measurements. */
static void layout(void) {
    cairo_surface_t *s = cairo_image_surface_create(CAIRO_FORMAT_RGB24, 1, 1);
    cairo_t *cr = cairo_create(s);
    double y = MARGIN + TITLE_SIZE;
    add_line(y, 2, "Spring Catalogue");
    for (int sec = 0; y < HEIGHT - MARGIN && nsections < MAX_SECTIONS; sec++) {
        char text[LINE_CHARS];
        snprintf(text, sizeof text, "%d. %s", sec + 1, TITLES[sec % 12]);
        y += 1.6 * HEAD_SIZE;
        if (!add_line(y, 1, text)) break;
        sections[nsections].y = y - HEAD_SIZE;
        sections[nsections++].title = TITLES[sec % 12];
        y += 0.4 * HEAD_SIZE;
        set_font(cr, 0, BODY_SIZE);
        for (int para = 0, paras = 2 + next_rand(3); para < paras; para++) {
            int words = 40 + next_rand(50), len = 0;
            text[0] = 0;
            for (int w = 0; w < words; w++) {
                char word[32];
                snprintf(word, sizeof word, "%s%s", WORDS[next_rand(sizeof WORDS / sizeof *WORDS)],
                         w == words - 1 ? "." : next_rand(9) == 0 ? "," : "");
                if (w == 0) word[0] -= 'a' - 'A';
                char try[LINE_CHARS];
                int n = snprintf(try, sizeof try, "%s%s%s", text, len ? " " : "", word);
                cairo_text_extents_t e;
                cairo_text_extents(cr, try, &e);
                if (len && (n >= LINE_CHARS || e.x_advance > WIDTH - 2 * MARGIN)) {
                    y += BODY_LEAD;               /* the line is full: set it, start the next */
                    add_line(y, 0, text);
                    snprintf(try, sizeof try, "%s", word);
                    n = (int)strlen(try);
                }
                memcpy(text, try, (size_t)n + 1);
                len = n;
            }
            y += BODY_LEAD;
            add_line(y, 0, text);
            y += BODY_LEAD / 2;
        }
    }
    cairo_destroy(cr);
    cairo_surface_destroy(s);
}

/* ---- Drawing a tile --------------------------------------------------------------------------- */

struct tile { long request, offset, stride, pw, ph; double scale, x, y, w, h; };

/* Draws straight into the slot: cairo's RGB24 is flickd's XRGB8888 (B, G, R, X in memory on a
 * little-endian machine). Device pixel (i, j) is content (x + i/scale, y + j/scale), so cairo
 * samples pixel centres exactly where flickd says pixel (i, j) shows content. */
static int draw_tile(unsigned char *pool, size_t pool_size, const struct tile *t) {
    if (t->pw < 1 || t->ph < 1 || t->pw > 1024 || t->ph > 1024 || t->stride < t->pw * 4 ||
        t->stride > 1 << 20 || t->stride % 4 || t->offset < 0 ||
        !(t->scale > 0) || (size_t)t->offset + (size_t)(t->ph - 1) * (size_t)t->stride +
        (size_t)t->pw * 4 > pool_size)
        return 0;   /* a tile that does not fit the pool: answer it undrawn */
    cairo_surface_t *s = cairo_image_surface_create_for_data(pool + t->offset, CAIRO_FORMAT_RGB24,
                                                             (int)t->pw, (int)t->ph, (int)t->stride);
    cairo_t *cr = cairo_create(s);
    cairo_set_source_rgb(cr, 0.98, 0.97, 0.94);
    cairo_paint(cr);
    cairo_scale(cr, t->scale, t->scale);   /* from here on: content pixels */
    cairo_translate(cr, -t->x, -t->y);
    for (int i = 0; i < nlines; i++) {
        const struct line *l = &lines[i];
        double size = l->heading == 2 ? TITLE_SIZE : l->heading ? HEAD_SIZE : BODY_SIZE;
        if (l->y + 0.3 * size < t->y || l->y - size > t->y + t->h) continue;   /* not in it */
        set_font(cr, l->heading, size);
        if (l->heading) {
            cairo_set_source_rgb(cr, 0.10, 0.22, 0.42);
            cairo_rectangle(cr, MARGIN, l->y + 0.3 * size, WIDTH - 2 * MARGIN, 3);
            cairo_fill(cr);
        } else {
            cairo_set_source_rgb(cr, 0.16, 0.16, 0.18);
        }
        cairo_move_to(cr, MARGIN, l->y);
        cairo_show_text(cr, l->text);
    }
    cairo_destroy(cr);
    cairo_surface_flush(s);   /* every pixel in memory before flickd is told to copy them */
    cairo_surface_destroy(s);
    return 1;
}

/* ---- JSON: find a member's value in an object, skipping everything else ---------------------- */

static const char *ws(const char *p) { while (*p == ' ' || *p == '\t' || *p == '\r') p++; return p; }

static const char *skip_string(const char *p) {   /* p at '"'; returns past the closing '"' */
    for (p++; *p && *p != '"'; p++)
        if (*p == '\\' && !*++p) return NULL;
    return *p ? p + 1 : NULL;
}

static const char *skip_value(const char *p, int depth) {   /* returns past the value, or NULL */
    p = ws(p);
    if (*p == '"') return skip_string(p);
    if (*p == '{' || *p == '[') {
        char close = *p == '{' ? '}' : ']';
        if (depth > 32) return NULL;
        p = ws(p + 1);
        if (*p == close) return p + 1;
        for (;;) {
            if (close == '}') {
                if (*p != '"' || !(p = skip_string(p)) || *(p = ws(p)) != ':') return NULL;
                p++;
            }
            if (!(p = skip_value(p, depth + 1))) return NULL;
            p = ws(p);
            if (*p == close) return p + 1;
            if (*p != ',') return NULL;
            p = ws(p + 1);
        }
    }
    const char *start = p;   /* a number, true, false or null */
    while (*p && !strchr(",}] \t\r\n", *p)) p++;
    return p > start ? p : NULL;
}

/* The value of member `key` of the object at `obj`, or NULL: not an object, no such member, or
 * malformed before it. Keys are compared as written (the ones read here have no escapes). */
static const char *member(const char *obj, const char *key) {
    if (!obj || *(obj = ws(obj)) != '{') return NULL;
    const char *p = ws(obj + 1);
    size_t klen = strlen(key);
    while (*p == '"') {
        const char *end = skip_string(p);
        if (!end || *(end = ws(end)) != ':') return NULL;
        const char *value = ws(end + 1);
        if ((size_t)(end - p) >= klen + 2 && !memcmp(p + 1, key, klen) && p[klen + 1] == '"')
            return value;
        if (!(p = skip_value(value, 1))) return NULL;
        p = ws(p);
        if (*p != ',') return NULL;
        p = ws(p + 1);
    }
    return NULL;
}

static int number(const char *obj, const char *key, double *out) {
    const char *v = member(obj, key);
    char *end;
    if (!v || !(*v == '-' || (*v >= '0' && *v <= '9'))) return 0;
    *out = strtod(v, &end);   /* never setlocale(): the C locale's '.' is JSON's */
    return end != v && isfinite(*out);
}

static int integer(const char *obj, const char *key, long *out) {
    double d;
    if (!number(obj, key, &d) || d != floor(d) || fabs(d) > 1e15) return 0;
    *out = (long)d;
    return 1;
}

/* A string member as written (escapes left as they are: for messages only), or "". */
static const char *raw_string(const char *obj, const char *key, char *buf, size_t size) {
    const char *v = member(obj, key), *end = v && *v == '"' ? skip_string(v) : NULL;
    snprintf(buf, size, "%.*s", end ? (int)(end - v - 2) : 0, end ? v + 1 : "");
    return buf;
}

static int string_is(const char *obj, const char *key, const char *want) {
    const char *v = member(obj, key);
    size_t n = strlen(want);
    return v && *v == '"' && !strncmp(v + 1, want, n) && v[n + 1] == '"';
}

/* ---- The connection ------------------------------------------------------------------------- */

static int sock = -1;
static char rbuf[128 * 1024];   /* flickd's lines are far below this; longer is a broken peer */
static size_t rstart, rlen;
static long next_id = 1;

static long send_line(int fd_to_pass, const char *fmt, ...) {   /* a request; returns its id */
    char buf[1024];
    long id = next_id++;
    int n = snprintf(buf, sizeof buf, "{\"id\": %ld, ", id);
    va_list ap;
    va_start(ap, fmt);
    n += vsnprintf(buf + n, sizeof buf - (size_t)n, fmt, ap);
    va_end(ap);
    if (n >= (int)sizeof buf - 1) die("request too long");
    buf[n++] = '\n';
    size_t off = 0;
    if (fd_to_pass >= 0) {   /* the fd rides on the same sendmsg as its request line */
        union { struct cmsghdr h; char space[CMSG_SPACE(sizeof(int))]; } c;
        struct iovec iov = { buf, (size_t)n };
        struct msghdr msg = { .msg_iov = &iov, .msg_iovlen = 1, .msg_control = c.space,
                              .msg_controllen = sizeof c.space };
        memset(&c, 0, sizeof c);
        struct cmsghdr *cm = CMSG_FIRSTHDR(&msg);
        cm->cmsg_level = SOL_SOCKET;
        cm->cmsg_type = SCM_RIGHTS;
        cm->cmsg_len = CMSG_LEN(sizeof(int));
        memcpy(CMSG_DATA(cm), &fd_to_pass, sizeof(int));
        ssize_t r;
        while ((r = sendmsg(sock, &msg, MSG_NOSIGNAL)) < 0 && errno == EINTR) {}
        if (r < 0) die("sending to flickd: %s", strerror(errno));
        off = (size_t)r;
    }
    while (off < (size_t)n) {
        ssize_t r = send(sock, buf + off, (size_t)n - off, MSG_NOSIGNAL);
        if (r < 0 && errno == EINTR) continue;
        if (r < 0) die("sending to flickd: %s", strerror(errno));
        off += (size_t)r;
    }
    return id;
}

static void fill(void) {   /* read what has come (waits for some); exits at end of stream */
    memmove(rbuf, rbuf + rstart, rlen - rstart);
    rlen -= rstart;
    rstart = 0;
    if (rlen == sizeof rbuf - 1) die("a line from flickd is too long");
    ssize_t r;
    while ((r = read(sock, rbuf + rlen, sizeof rbuf - 1 - rlen)) < 0 && errno == EINTR) {}
    if (r < 0) die("reading from flickd: %s", strerror(errno));
    if (r == 0) die("flickd closed the connection");
    rlen += (size_t)r;
}

static char *take_line(void) {   /* the next complete line, NUL-terminated, or NULL */
    char *nl = memchr(rbuf + rstart, '\n', rlen - rstart);
    if (!nl) return NULL;
    char *line = rbuf + rstart;
    *nl = 0;
    rstart = (size_t)(nl - rbuf) + 1;
    return line;
}

/* ---- Events ------------------------------------------------------------------------------- */

static struct tile queue[MAX_SLOTS];   /* requested, not drawn yet, oldest first */
static int queued;

static void on_event(const char *e) {
    long request;
    const char *t = member(e, "tile");
    if (string_is(e, "type", "tileRequest") && integer(e, "request", &request)) {
        struct tile q = { .request = request };
        if (queued == MAX_SLOTS || !integer(t, "offset", &q.offset) ||
            !integer(t, "stride", &q.stride) || !integer(t, "pixelWidth", &q.pw) ||
            !integer(t, "pixelHeight", &q.ph) || !number(t, "scale", &q.scale) ||
            !number(t, "x", &q.x) || !number(t, "y", &q.y) || !number(t, "width", &q.w) ||
            !number(t, "height", &q.h)) {
            fprintf(stderr, "cairo-text: cannot take request %ld: %s\n", request, e);
            send_line(-1, "\"cmd\": \"tile\", \"request\": %ld, \"drawn\": false}", request);
            return;
        }
        queue[queued++] = q;
    } else if (string_is(e, "type", "tileCancel") && integer(e, "request", &request)) {
        /* Still queued: skip it. Answered already: nothing to do (a second answer is an error). */
        for (int i = 0; i < queued; i++)
            if (queue[i].request == request) {
                memmove(&queue[i], &queue[i + 1], (size_t)(queued - i - 1) * sizeof *queue);
                queued--;
                send_line(-1, "\"cmd\": \"tile\", \"request\": %ld, \"drawn\": false}", request);
                break;
            }
    } else if (string_is(e, "type", "tap")) {
        double x = 0, y = 0;
        number(e, "x", &x);
        number(e, "y", &y);
        int s = nsections - 1;
        while (s >= 0 && sections[s].y > y) s--;
        printf("tap at %g,%g -> %s%s\n", x, y, s >= 0 ? "section: " : "the title",
               s >= 0 ? sections[s].title : "");
        fflush(stdout);
    }   /* Other events (contentTouch*, doubleTap, newer types) are not needed here. */
}

/* Handles every complete line read; returns the reply to `want` (0: none) if it was among them. */
static char *dispatch(long want) {
    char *line;
    while ((line = take_line())) {
        long id = 0;
        if (member(line, "type")) {
            on_event(line);
        } else if (member(line, "ok")) {
            integer(line, "id", &id);
            if (want && id == want) return line;
            if (*member(line, "ok") == 'f') {   /* e.g. a late answer to a request given up */
                char error[512];
                fprintf(stderr, "cairo-text: request %ld refused: %s\n", id,
                        raw_string(line, "error", error, sizeof error));
            }
        }
    }
    return NULL;
}

static char *wait_reply(long id) {
    char *reply;
    while (!(reply = dispatch(id))) fill();
    return reply;
}

static double now(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

int main(int argc, char **argv) {
    const char *path = getenv("FLICKD_SOCKET"), *name = "catalogue";
    double exit_after = -1;
    long slots = 16, tile_size = 256;
    if (!path || !*path) path = "/run/flickd/control.sock";
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (!strcmp(a, "--socket") && v) path = argv[++i];
        else if (!strcmp(a, "--exit-after") && v) exit_after = atof(argv[++i]);
        else if (!strcmp(a, "--slots") && v) slots = atol(argv[++i]);
        else if (!strcmp(a, "--tile-size") && v) tile_size = atol(argv[++i]);
        else if (!strcmp(a, "--name") && v) name = argv[++i];
        else die("usage: cairo-text [--socket PATH] [--exit-after SECONDS] [--slots N (1-64)]"
                 " [--tile-size N (64-1024)] [--name NAME]");
    }
    if (slots < 1 || slots > MAX_SLOTS || tile_size < 64 || tile_size > 1024) die("bad --slots or --tile-size");
    if (!*name || strlen(name) > 64 || strspn(name, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
                                                  "0123456789._-") != strlen(name))
        die("--name: 1 to 64 of A-Z a-z 0-9 . _ -");   /* also keeps it safe to put in JSON as is */
    layout();

    struct sockaddr_un addr = { .sun_family = AF_UNIX };
    if (strlen(path) >= sizeof addr.sun_path) die("socket path too long: %s", path);
    strcpy(addr.sun_path, path);
    if ((sock = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0)) < 0 ||
        connect(sock, (struct sockaddr *)&addr, sizeof addr) < 0)
        die("cannot connect to flickd at %s: %s (is flickd running? set FLICKD_SOCKET or pass "
            "--socket PATH)", path, strerror(errno));

    double version = 0;
    char *reply = wait_reply(send_line(-1, "\"cmd\": \"status\"}"));
    if (!number(member(reply, "status"), "protocolVersion", &version) || version != PROTOCOL_VERSION)
        die("flickd speaks control protocol %g; this app needs %d", version ? version : 1, PROTOCOL_VERSION);

    /* The pool: exactly slots x tileSize^2 x 4 bytes, sealed so it can never shrink under
     * flickd's mapping (nor grow: it never needs to). */
    size_t pool_size = (size_t)slots * (size_t)tile_size * (size_t)tile_size * 4;
    int fd = memfd_create("flickd-catalogue", MFD_CLOEXEC | MFD_ALLOW_SEALING);
    if (fd < 0 || ftruncate(fd, (off_t)pool_size) < 0 ||
        fcntl(fd, F_ADD_SEALS, F_SEAL_SHRINK | F_SEAL_GROW) < 0)
        die("making the pool: %s", strerror(errno));
    unsigned char *pool = mmap(NULL, pool_size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    if (pool == MAP_FAILED) die("mapping the pool: %s", strerror(errno));
    /* "detail": 1: levels of detail up to zoom 2, so zooming in asks for tiles at scale 2 and the
     * text is drawn again, sharp, instead of being stretched. */
    reply = wait_reply(send_line(fd, "\"cmd\": \"provide\", \"width\": %d, \"height\": %d, "
        "\"tileSize\": %ld, \"slots\": %ld, \"detail\": 1, \"opaque\": true, \"background\": \"#FAF7F0\", "
        "\"name\": \"%s\"}", WIDTH, HEIGHT, tile_size, slots, name));
    close(fd);   /* flickd has its own copy; ours lives on in the mapping */
    const char *provider = member(reply, "provider"), *end = provider ? skip_value(provider, 0) : NULL;
    char error[512];
    if (!end) die("flickd refused 'provide': %s", raw_string(reply, "error", error, sizeof error));
    printf("%.*s\n", (int)(end - provider), provider);
    fflush(stdout);

    double deadline = exit_after >= 0 ? now() + exit_after : INFINITY;
    for (;;) {
        dispatch(0);   /* what has been read, also what came along with a reply */
        if (now() >= deadline) break;
        int wait = queued ? 0 : isinf(deadline) ? -1 : (int)ceil((deadline - now()) * 1000);
        struct pollfd p = { .fd = sock, .events = POLLIN };
        if (poll(&p, 1, wait) > 0) {
            fill();
            dispatch(0);
        }
        if (queued) {   /* one tile per pass, reading in between: a cancel can still skip the rest */
            struct tile t = queue[0];
            memmove(&queue[0], &queue[1], (size_t)--queued * sizeof *queue);
            int drawn = draw_tile(pool, pool_size, &t);
            if (!drawn) fprintf(stderr, "cairo-text: tile %ld does not fit the pool\n", t.request);
            send_line(-1, "\"cmd\": \"tile\", \"request\": %ld%s}", t.request,
                      drawn ? "" : ", \"drawn\": false");
        }
    }
    return 0;
}

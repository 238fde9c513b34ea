/* bench/loadgen.c: bench/hub.py's load process in C (``--load-impl c``).
 *
 *     jantaku-loadgen --url ws://H:P/ws[,ws://H2:P2/ws...] --load play --tables T [--pace S] [--seed N]
 *     jantaku-loadgen --url URLS --load idle --idle N
 *     jantaku-loadgen --self-test
 *
 * The load stands in for clients on other machines, yet on the bench's machine it shares the cores
 * with the nodes and PostgreSQL: the less CPU it takes per action, the less it weighs on what is
 * measured. This program does what bench/hub.py's BotClient and run_load do, with the same bytes on
 * the wire, in one thread on epoll:
 *
 * - connection i goes to target i mod n; connections open in batches of 100 (the server's listen
 *   backlog), each batch's ``welcome``s awaited before the next;
 * - the HTTP upgrade of BotClient, then ``hello`` as guest ``b<i>``; client frames masked with an
 *   all-zero mask; server frames parsed across reads; ping answered by pong, close closes;
 * - ``play``: JOIN after welcome, after ``match_end``, and 5-15 s after an ``error`` before the
 *   first ``seated``; each ``prompt`` answered after pace x U[0.5, 1.5) seconds (at once with pace 0)
 *   with an act echoing its ``step`` and one of its ``legal_actions`` byte for byte, chosen as
 *   bench/hub.py's choose() does; ``event`` frames are counted and not parsed;
 * - stdout: JSON lines ``{"connected": N}``, ``{"seating": s, "of": N, "closed": c}`` every 10 s
 *   while seating, ``{"seated": N}``; stdin: ``window`` resets the window's counters, EOF stops and
 *   prints the report (run_load's keys).
 *
 * Linux only, C11, no library beyond libc:  cc -O2 -Wall -Wextra -o jantaku-loadgen loadgen.c
 */
#define _GNU_SOURCE
#include <errno.h>
#include <inttypes.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/types.h>
#include <time.h>
#include <unistd.h>

#define CONNECT_BATCH 100       /* connections opened at once (the server's listen backlog is 100) */
#define MAX_SIZE_SAMPLES 50000  /* sizes of received frames kept for the report */
#define SENT_SLOTS 8            /* acts awaiting their ack, per connection (a ring by request id) */
#define MAX_FRAME (64u << 20)   /* a larger server frame is a protocol error */
#define MAX_HEADER 16384        /* the upgrade response's headers */
#define READ_ROOM 65536         /* free room for each read */
#define STDIN_TAG UINT32_MAX    /* epoll tag of stdin (connections are tagged by index) */
#define NS 1000000000LL

enum { ST_CONNECTING, ST_HANDSHAKE, ST_OPEN, ST_CLOSED };
enum { T_ACT, T_JOIN_AGAIN };
enum { PH_CONNECT, PH_SEATING, PH_RUNNING };

typedef struct {
    int fd;
    uint8_t state;
    bool welcomed, seated, out_armed;
    uint32_t target;
    uint64_t rng;
    int64_t request_id;
    int64_t sent_id[SENT_SLOTS];
    int64_t sent_at[SENT_SLOTS];
    uint8_t *rbuf; /* the bytes of a partial frame (or response) left from the last read */
    size_t rlen;
    uint8_t *wbuf; /* bytes the socket did not take yet (sent when it is writable) */
    size_t wlen, wcap;
} Conn;

typedef struct {
    int64_t at;
    uint64_t seq; /* equal deadlines fire in the order they were set */
    uint32_t conn;
    uint32_t kind;
    int64_t step;
    char *action; /* the chosen legal action's JSON (T_ACT) */
    size_t alen;
} Timer;

typedef struct {
    char host[256];
    int port;
    struct sockaddr_storage addr;
    socklen_t addrlen;
} Target;

static struct {
    int64_t welcomed, seated, acts, acks, errors, matches_ended, frames, closed;
    int64_t window_acts, window_frames, window_bytes, window_act_bytes;
    uint32_t *sizes;
    size_t nsizes;
    int64_t *lat; /* client side: act sent -> ack received, ns */
    size_t nlat, latcap;
} C;

static Conn *conns;
static uint32_t total;
static Target *targets;
static uint32_t ntargets;
static bool play;
static double pace;
static uint64_t seed = 1;
static bool stopping;
static int ep = -1;
static uint8_t *g_rbuf;
static size_t g_rcap;
static Timer *heap;
static size_t nheap, heapcap;
static uint64_t timer_seq;
static uint32_t welcomed_conns;
static int phase = PH_CONNECT;
static uint32_t batch_end;
static int64_t progress_at;
static bool stdin_polled = true; /* false: stdin is a file (epoll refuses it), read once running */
static char linebuf[4096];
static size_t linelen;

static const char JOIN[] = "{\"type\":\"join\",\"target\":{\"type\":\"queue\",\"preset\":\"tenhou\"}}";

/* -- small things -------------------------------------------------------------------------------- */

__attribute__((format(printf, 1, 2))) _Noreturn static void die(const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    fputs("jantaku-loadgen: ", stderr);
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
    va_end(ap);
    exit(1);
}

static void *xrealloc(void *p, size_t n) {
    void *q = realloc(p, n ? n : 1);
    if (!q) die("out of memory (%zu bytes)", n);
    return q;
}

static int64_t now_ns(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * NS + ts.tv_nsec;
}

/* splitmix64: one state per connection, from --seed and the connection's index */
static uint64_t rng_next(uint64_t *s) {
    uint64_t z = (*s += 0x9E3779B97F4A7C15ULL);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
    return z ^ (z >> 31);
}

static double uniform(uint64_t *s) { return (double)(rng_next(s) >> 11) * 0x1.0p-53; }

__attribute__((format(printf, 1, 2))) static void emit(const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    vprintf(fmt, ap);
    va_end(ap);
    putchar('\n');
    if (fflush(stdout) != 0) die("stdout: %s", strerror(errno));
}

/* -- timers: a binary min-heap on (at, seq) ------------------------------------------------------ */

static bool timer_before(const Timer *a, const Timer *b) {
    return a->at < b->at || (a->at == b->at && a->seq < b->seq);
}

static void timer_push(Timer t) {
    if (nheap == heapcap) {
        heapcap = heapcap ? 2 * heapcap : 1024;
        heap = xrealloc(heap, heapcap * sizeof *heap);
    }
    t.seq = timer_seq++;
    size_t i = nheap++;
    while (i > 0) {
        size_t parent = (i - 1) / 2;
        if (!timer_before(&t, &heap[parent])) break;
        heap[i] = heap[parent];
        i = parent;
    }
    heap[i] = t;
}

static Timer timer_pop(void) {
    Timer top = heap[0], last = heap[--nheap];
    size_t i = 0;
    for (;;) {
        size_t child = 2 * i + 1;
        if (child >= nheap) break;
        if (child + 1 < nheap && timer_before(&heap[child + 1], &heap[child])) child++;
        if (!timer_before(&heap[child], &last)) break;
        heap[i] = heap[child];
        i = child;
    }
    if (nheap) heap[i] = last;
    return top;
}

/* -- JSON: just enough to find a top-level member and step over values --------------------------- */

static const char *json_ws(const char *p, const char *e) {
    while (p < e && (*p == ' ' || *p == '\t' || *p == '\n' || *p == '\r')) p++;
    return p;
}

static const char *json_skip_string(const char *p, const char *e) { /* p at the opening quote */
    for (p++; p < e; p++) {
        if (*p == '\\') {
            p++;
        } else if (*p == '"') {
            return p + 1;
        }
    }
    return NULL;
}

static const char *json_skip_value(const char *p, const char *e) {
    p = json_ws(p, e);
    if (p >= e) return NULL;
    if (*p == '"') return json_skip_string(p, e);
    if (*p == '{' || *p == '[') {
        int depth = 0;
        while (p < e) {
            if (*p == '"') {
                p = json_skip_string(p, e);
                if (!p) return NULL;
                continue;
            }
            if (*p == '{' || *p == '[') {
                depth++;
            } else if (*p == '}' || *p == ']') {
                if (--depth == 0) return p + 1;
            }
            p++;
        }
        return NULL;
    }
    const char *s = p;
    while (p < e && *p != ',' && *p != '}' && *p != ']' && *p != ' ' && *p != '\t' && *p != '\n' &&
           *p != '\r')
        p++;
    return p > s ? p : NULL;
}

/* The value of the top-level member `key` of the object at p: [*vs, *ve). */
static bool json_member(const char *p, const char *e, const char *key, const char **vs, const char **ve) {
    size_t klen = strlen(key);
    p = json_ws(p, e);
    if (p >= e || *p != '{') return false;
    p = json_ws(p + 1, e);
    if (p < e && *p == '}') return false;
    for (;;) {
        p = json_ws(p, e);
        if (p >= e || *p != '"') return false;
        const char *ks = p + 1, *kend = json_skip_string(p, e);
        if (!kend) return false;
        bool match = (size_t)(kend - 1 - ks) == klen && memcmp(ks, key, klen) == 0;
        p = json_ws(kend, e);
        if (p >= e || *p != ':') return false;
        const char *v = json_ws(p + 1, e);
        p = json_skip_value(v, e);
        if (!p) return false;
        if (match) {
            *vs = v;
            *ve = p;
            return true;
        }
        p = json_ws(p, e);
        if (p >= e || *p != ',') return false;
        p++;
    }
}

static bool span_is(const char *s, const char *e, const char *lit) {
    size_t n = strlen(lit);
    return (size_t)(e - s) == n && memcmp(s, lit, n) == 0;
}

static bool json_int(const char *s, const char *e, int64_t *out) {
    bool neg = s < e && *s == '-';
    if (neg) s++;
    if (s >= e) return false;
    int64_t v = 0;
    for (; s < e; s++) {
        if (*s < '0' || *s > '9' || v > (INT64_MAX - 9) / 10) return false;
        v = v * 10 + (*s - '0');
    }
    *out = neg ? -v : v;
    return true;
}

/* bench/hub.py's choose(): the first tsumo or ron; else the first pass; else the first discard with
 * "tsumogiri": true; else the first action. [arr, e) is the legal_actions array; the choice is the
 * element's bytes [*as, *ae). */
static bool choose(const char *arr, const char *e, const char **as, const char **ae) {
    const char *p = json_ws(arr, e);
    if (p >= e || *p != '[') return false;
    const char *first = NULL, *first_e = NULL, *pass = NULL, *pass_e = NULL, *tg = NULL, *tg_e = NULL;
    p = json_ws(p + 1, e);
    while (p < e && *p != ']') {
        const char *s = p, *t = json_skip_value(p, e);
        if (!t) return false;
        const char *ts, *te, *gs, *ge;
        if (json_member(s, t, "type", &ts, &te)) {
            if (span_is(ts, te, "\"tsumo\"") || span_is(ts, te, "\"ron\"")) {
                *as = s;
                *ae = t;
                return true;
            }
            if (!pass && span_is(ts, te, "\"pass\"")) {
                pass = s;
                pass_e = t;
            } else if (!tg && span_is(ts, te, "\"discard\"") && json_member(s, t, "tsumogiri", &gs, &ge) &&
                       span_is(gs, ge, "true")) {
                tg = s;
                tg_e = t;
            }
        }
        if (!first) {
            first = s;
            first_e = t;
        }
        p = json_ws(t, e);
        if (p < e && *p == ',') p = json_ws(p + 1, e);
    }
    if (pass) {
        *as = pass;
        *ae = pass_e;
    } else if (tg) {
        *as = tg;
        *ae = tg_e;
    } else if (first) {
        *as = first;
        *ae = first_e;
    } else {
        return false;
    }
    return true;
}

/* -- sockets ------------------------------------------------------------------------------------- */

static void conn_close(uint32_t i) {
    Conn *c = &conns[i];
    if (c->state == ST_CLOSED) return;
    if (c->fd >= 0) close(c->fd); /* also leaves the epoll set */
    c->fd = -1;
    c->state = ST_CLOSED;
    free(c->rbuf);
    free(c->wbuf);
    c->rbuf = c->wbuf = NULL;
    c->rlen = c->wlen = c->wcap = 0;
    C.closed++;
    if (!c->welcomed && !stopping) /* as run_load, which awaits every welcome of a batch */
        die("connection %" PRIu32 " to %s:%d closed before its welcome", i, targets[c->target].host,
            targets[c->target].port);
}

static void arm(uint32_t i, uint32_t events) {
    struct epoll_event ev = {.events = events, .data.u32 = i};
    if (epoll_ctl(ep, EPOLL_CTL_MOD, conns[i].fd, &ev) < 0) die("epoll_ctl: %s", strerror(errno));
}

/* Write now what the socket takes; keep the rest for when it is writable (never dropped). */
static void conn_write(uint32_t i, const void *data, size_t n) {
    Conn *c = &conns[i];
    if (c->state == ST_CLOSED || c->state == ST_CONNECTING) return; /* as a closing transport: no-op */
    const uint8_t *d = data;
    if (c->wlen == 0) {
        ssize_t w = send(c->fd, d, n, MSG_NOSIGNAL | MSG_DONTWAIT);
        if (w == (ssize_t)n) return;
        if (w < 0) {
            if (errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR) {
                conn_close(i);
                return;
            }
            w = 0;
        }
        d += w;
        n -= (size_t)w;
    }
    if (c->wlen + n > c->wcap) {
        c->wcap = c->wlen + n > 2 * c->wcap ? c->wlen + n : 2 * c->wcap;
        c->wbuf = xrealloc(c->wbuf, c->wcap);
    }
    memcpy(c->wbuf + c->wlen, d, n);
    c->wlen += n;
    if (!c->out_armed) {
        c->out_armed = true;
        arm(i, EPOLLIN | EPOLLOUT);
    }
}

/* One client frame: masked, with an all-zero mask (so the payload goes as is), as client_frame(). */
static void conn_send(uint32_t i, const void *payload, size_t n, int opcode) {
    uint8_t stack[1024];
    size_t head = n < 126 ? 2 : n < 65536 ? 4 : 10;
    size_t len = head + 4 + n;
    uint8_t *f = len <= sizeof stack ? stack : xrealloc(NULL, len);
    f[0] = (uint8_t)(0x80 | opcode);
    if (n < 126) {
        f[1] = (uint8_t)(0x80 | n);
    } else if (n < 65536) {
        f[1] = 0x80 | 126;
        f[2] = (uint8_t)(n >> 8);
        f[3] = (uint8_t)n;
    } else {
        f[1] = 0x80 | 127;
        for (int k = 0; k < 8; k++) f[2 + k] = (uint8_t)((uint64_t)n >> (56 - 8 * k));
    }
    memset(f + head, 0, 4);
    memcpy(f + head + 4, payload, n);
    conn_write(i, f, len);
    if (f != stack) free(f);
}

static void send_text(uint32_t i, const char *s, size_t n) { conn_send(i, s, n, 0x1); }

/* -- the bot ------------------------------------------------------------------------------------- */

static void act(uint32_t i, int64_t step, const char *action, size_t alen) {
    if (stopping) return;
    Conn *c = &conns[i];
    c->request_id++;
    char small[512];
    size_t cap = alen + 96;
    char *buf = cap <= sizeof small ? small : xrealloc(NULL, cap);
    int h = snprintf(buf, cap, "{\"type\":\"act\",\"request_id\":%" PRId64 ",\"step\":%" PRId64 ",\"action\":",
                     c->request_id, step);
    size_t len = (size_t)h;
    memcpy(buf + len, action, alen);
    len += alen;
    buf[len++] = '}';
    uint32_t slot = (uint32_t)(c->request_id % SENT_SLOTS);
    c->sent_id[slot] = c->request_id;
    c->sent_at[slot] = now_ns();
    send_text(i, buf, len);
    C.acts++;
    C.window_acts++;
    C.window_act_bytes += (int64_t)len;
    if (buf != small) free(buf);
}

static void on_prompt(uint32_t i, const char *p, const char *e) {
    if (stopping) return;
    const char *ss, *se, *ls, *le, *as, *ae;
    int64_t step;
    if (!json_member(p, e, "step", &ss, &se) || !json_int(ss, se, &step) ||
        !json_member(p, e, "legal_actions", &ls, &le) || !choose(ls, le, &as, &ae)) {
        fprintf(stderr, "jantaku-loadgen: connection %" PRIu32 ": a prompt without step or legal actions\n", i);
        return;
    }
    if (pace > 0) {
        double delay = pace * (0.5 + uniform(&conns[i].rng));
        size_t alen = (size_t)(ae - as);
        char *copy = xrealloc(NULL, alen);
        memcpy(copy, as, alen);
        timer_push((Timer){.at = now_ns() + (int64_t)(delay * 1e9), .conn = i, .kind = T_ACT, .step = step,
                           .action = copy, .alen = alen});
    } else {
        act(i, step, as, (size_t)(ae - as));
    }
}

static void on_text(uint32_t i, const char *p, size_t n) {
    Conn *c = &conns[i];
    C.frames++;
    C.window_frames++;
    C.window_bytes += (int64_t)n;
    if (C.nsizes < MAX_SIZE_SAMPLES) C.sizes[C.nsizes++] = (uint32_t)n;
    static const char event[] = "{\"type\":\"event\"";
    if (n >= sizeof event - 1 && memcmp(p, event, sizeof event - 1) == 0) return;
    const char *e = p + n, *ts, *te;
    static const char prefix[] = "{\"type\":\"";
    if (n > sizeof prefix - 1 && memcmp(p, prefix, sizeof prefix - 1) == 0) { /* the server writes it first */
        ts = p + sizeof prefix - 1;
        te = memchr(ts, '"', (size_t)(e - ts));
        if (!te) return;
    } else if (json_member(p, e, "type", &ts, &te) && te - ts >= 2 && *ts == '"') {
        ts++;
        te--;
    } else {
        return;
    }
    size_t tlen = (size_t)(te - ts);
#define IS(lit) (tlen == sizeof(lit) - 1 && memcmp(ts, lit, tlen) == 0)
    if (IS("prompt")) {
        on_prompt(i, p, e);
    } else if (IS("ack")) {
        C.acks++;
        const char *rs, *re;
        int64_t id;
        if (json_member(p, e, "request_id", &rs, &re) && json_int(rs, re, &id) && id > 0) {
            uint32_t slot = (uint32_t)(id % SENT_SLOTS);
            if (c->sent_id[slot] == id) {
                c->sent_id[slot] = 0;
                if (C.nlat == C.latcap) {
                    C.latcap = C.latcap ? 2 * C.latcap : 65536;
                    C.lat = xrealloc(C.lat, C.latcap * sizeof *C.lat);
                }
                C.lat[C.nlat++] = now_ns() - c->sent_at[slot];
            }
        }
    } else if (IS("welcome")) {
        C.welcomed++;
        if (!c->welcomed) {
            c->welcomed = true;
            welcomed_conns++;
        }
        if (play) send_text(i, JOIN, sizeof JOIN - 1);
    } else if (IS("seated")) {
        if (!c->seated) {
            c->seated = true;
            C.seated++;
        }
    } else if (IS("error")) {
        C.errors++;
        if (play && !c->seated && !stopping) /* e.g. its table could not start: later, spread out */
            timer_push((Timer){.at = now_ns() + (int64_t)((5.0 + 10.0 * uniform(&c->rng)) * 1e9), .conn = i,
                               .kind = T_JOIN_AGAIN});
    } else if (IS("match_end")) {
        C.matches_ended++;
        if (!stopping) send_text(i, JOIN, sizeof JOIN - 1);
    }
#undef IS
}

/* Complete frames of buf[0, len): handled in order; returns the bytes used (a partial frame's are
 * left), or -1 on a protocol error. Stops early when a frame closes the connection. */
static long parse_frames(uint32_t i, uint8_t *buf, size_t len) {
    size_t pos = 0;
    while (len - pos >= 2 && conns[i].state == ST_OPEN) {
        uint8_t b0 = buf[pos], b1 = buf[pos + 1];
        uint64_t n = b1 & 0x7F;
        size_t head = 2;
        if (n == 126) {
            if (len - pos < 4) break;
            n = (uint64_t)buf[pos + 2] << 8 | buf[pos + 3];
            head = 4;
        } else if (n == 127) {
            if (len - pos < 10) break;
            n = 0;
            for (size_t k = 0; k < 8; k++) n = n << 8 | buf[pos + 2 + k];
            head = 10;
        }
        size_t mask_at = head;
        if (b1 & 0x80) head += 4; /* a server does not mask; read one that does all the same */
        if (n > MAX_FRAME) return -1;
        if (len - pos < head + n) break;
        uint8_t *payload = buf + pos + head;
        if (b1 & 0x80)
            for (uint64_t k = 0; k < n; k++) payload[k] ^= buf[pos + mask_at + (k & 3)];
        pos += head + (size_t)n;
        switch (b0 & 0x0F) {
        case 0x1:
            on_text(i, (const char *)payload, (size_t)n);
            break;
        case 0x9:
            conn_send(i, payload, (size_t)n, 0xA); /* pong, same payload */
            break;
        case 0x8:
            conn_close(i);
            break;
        default:
            break;
        }
    }
    return (long)pos;
}

/* One read (level-triggered epoll brings us back while more is waiting). Returns the bytes read. */
static ssize_t on_readable(uint32_t i) {
    Conn *c = &conns[i];
    size_t have = c->rlen;
    if (g_rcap < have + READ_ROOM) {
        g_rcap = have + READ_ROOM > 2 * g_rcap ? have + READ_ROOM : 2 * g_rcap;
        g_rbuf = xrealloc(g_rbuf, g_rcap);
    }
    if (have) memcpy(g_rbuf, c->rbuf, have);
    ssize_t got = recv(c->fd, g_rbuf + have, g_rcap - have, 0);
    if (got < 0) {
        if (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR) return 0;
        conn_close(i);
        return 0;
    }
    if (got == 0) {
        conn_close(i);
        return 0;
    }
    size_t len = have + (size_t)got, pos = 0;
    if (c->state == ST_HANDSHAKE) {
        uint8_t *end = memmem(g_rbuf, len, "\r\n\r\n", 4);
        if (!end) {
            if (len > MAX_HEADER) {
                fprintf(stderr, "jantaku-loadgen: connection %" PRIu32 ": no end of the upgrade response\n", i);
                conn_close(i);
                return 0;
            }
        } else {
            uint8_t *eol = memmem(g_rbuf, len, "\r\n", 2);
            if (!memmem(g_rbuf, (size_t)(eol - g_rbuf), " 101 ", 5)) {
                fprintf(stderr, "jantaku-loadgen: connection %" PRIu32 ": no websocket upgrade: %.*s\n", i,
                        (int)(eol - g_rbuf < 200 ? eol - g_rbuf : 200), (const char *)g_rbuf);
                conn_close(i);
                return 0;
            }
            pos = (size_t)(end - g_rbuf) + 4;
            c->state = ST_OPEN;
            char hello[128];
            int n = snprintf(hello, sizeof hello,
                             "{\"type\":\"hello\",\"protocol\":1,\"auth\":{\"type\":\"guest\",\"name\":\"b%" PRIu32
                             "\"}}",
                             i);
            send_text(i, hello, (size_t)n);
        }
    }
    if (c->state == ST_OPEN) {
        long used = parse_frames(i, g_rbuf + pos, len - pos);
        if (c->state == ST_CLOSED) return got;
        if (used < 0) {
            fprintf(stderr, "jantaku-loadgen: connection %" PRIu32 ": a frame over %u bytes\n", i, MAX_FRAME);
            conn_close(i);
            return got;
        }
        pos += (size_t)used;
    }
    if (c->state == ST_CLOSED) return got;
    size_t left = len - pos;
    if (left == 0) {
        free(c->rbuf);
        c->rbuf = NULL;
    } else {
        if (left > c->rlen || !c->rbuf) c->rbuf = xrealloc(c->rbuf, left);
        memmove(c->rbuf, g_rbuf + pos, left);
    }
    c->rlen = left;
    return got;
}

static void send_handshake(uint32_t i) {
    Target *t = &targets[conns[i].target];
    char req[512];
    int n = snprintf(req, sizeof req,
                     "GET /ws HTTP/1.1\r\nHost: %s:%d\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
                     "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n",
                     t->host, t->port);
    conn_write(i, req, (size_t)n);
}

static void on_writable(uint32_t i) {
    Conn *c = &conns[i];
    if (c->state == ST_CONNECTING) {
        int err = 0;
        socklen_t len = sizeof err;
        if (getsockopt(c->fd, SOL_SOCKET, SO_ERROR, &err, &len) < 0) err = errno;
        if (err) die("connect to %s:%d: %s", targets[c->target].host, targets[c->target].port, strerror(err));
        c->state = ST_HANDSHAKE;
        arm(i, EPOLLIN);
        send_handshake(i);
        return;
    }
    if (c->state == ST_CLOSED) return;
    size_t off = 0;
    while (off < c->wlen) {
        ssize_t w = send(c->fd, c->wbuf + off, c->wlen - off, MSG_NOSIGNAL | MSG_DONTWAIT);
        if (w < 0) {
            if (errno == EINTR) continue;
            if (errno == EAGAIN || errno == EWOULDBLOCK) break;
            conn_close(i);
            return;
        }
        off += (size_t)w;
    }
    memmove(c->wbuf, c->wbuf + off, c->wlen - off);
    c->wlen -= off;
    if (c->wlen == 0) {
        c->out_armed = false;
        arm(i, EPOLLIN);
    }
}

static void open_conn(uint32_t i) {
    Conn *c = &conns[i];
    Target *t = &targets[c->target];
    c->fd = socket(t->addr.ss_family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
    if (c->fd < 0) die("socket for connection %" PRIu32 ": %s", i, strerror(errno));
    int one = 1; /* as asyncio and uvloop do for TCP */
    setsockopt(c->fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
    c->state = ST_CONNECTING;
    struct epoll_event ev = {.events = EPOLLOUT, .data.u32 = i};
    if (epoll_ctl(ep, EPOLL_CTL_ADD, c->fd, &ev) < 0) die("epoll_ctl: %s", strerror(errno));
    if (connect(c->fd, (struct sockaddr *)&t->addr, t->addrlen) < 0 && errno != EINPROGRESS)
        die("connect to %s:%d: %s", t->host, t->port, strerror(errno));
    /* connected or not yet: EPOLLOUT says when (and SO_ERROR whether) */
}

static void start_batch(void) {
    uint32_t start = batch_end;
    batch_end = start + CONNECT_BATCH < total ? start + CONNECT_BATCH : total;
    for (uint32_t i = start; i < batch_end; i++) open_conn(i);
}

/* -- control ------------------------------------------------------------------------------------- */

static int cmp_i64(const void *a, const void *b) {
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return (x > y) - (x < y);
}

/* A float in milliseconds with two decimals, as Python's round(x, 2) prints it ("1.5", "2.0"). */
static void put_ms(int64_t ns) {
    char buf[64];
    snprintf(buf, sizeof buf, "%.2f", (double)ns / 1e6);
    size_t n = strlen(buf);
    while (n > 0 && buf[n - 1] == '0' && buf[n - 2] != '.') buf[--n] = '\0';
    fputs(buf, stdout);
}

_Noreturn static void finish(void) {
    stopping = true;
    for (uint32_t i = 0; i < total; i++)
        if (conns[i].state != ST_CLOSED && conns[i].fd >= 0) {
            close(conns[i].fd);
            conns[i].fd = -1;
        }
    qsort(C.lat, C.nlat, sizeof *C.lat, cmp_i64);
    printf("{\"acts\": %" PRId64 ", \"acks\": %" PRId64 ", \"errors\": %" PRId64 ", \"matches_ended\": %" PRId64
           ", \"frames\": %" PRId64 ", \"window_acts\": %" PRId64 ", \"window_frames\": %" PRId64
           ", \"window_bytes\": %" PRId64 ", \"window_act_bytes\": %" PRId64 ", \"window_sizes\": [",
           C.acts, C.acks, C.errors, C.matches_ended, C.frames, C.window_acts, C.window_frames, C.window_bytes,
           C.window_act_bytes);
    for (size_t k = 0; k < C.nsizes; k++) printf(k ? ", %" PRIu32 : "%" PRIu32, C.sizes[k]);
    fputs("], \"client_p50_ms\": ", stdout);
    if (C.nlat) {
        put_ms(C.lat[C.nlat / 2]);
        fputs(", \"client_p99_ms\": ", stdout);
        put_ms(C.lat[(size_t)((double)C.nlat * 0.99)]);
    } else {
        fputs("null, \"client_p99_ms\": null", stdout);
    }
    emit("}");
    exit(0);
}

static void start_window(void) {
    C.window_acts = C.window_frames = C.window_bytes = C.window_act_bytes = 0;
    C.nsizes = 0;
}

/* Lines from the orchestrator: "window" starts the measured window; the end of input stops us. */
static void on_stdin(void) {
    char buf[4096];
    ssize_t n = read(STDIN_FILENO, buf, sizeof buf);
    if (n < 0) {
        if (errno == EAGAIN || errno == EINTR) return;
        finish();
    }
    if (n == 0) finish();
    for (ssize_t k = 0; k < n; k++) {
        if (buf[k] != '\n') {
            if (linelen < sizeof linebuf) linebuf[linelen++] = buf[k];
            continue;
        }
        size_t s = 0, e = linelen;
        while (s < e && (linebuf[s] == ' ' || linebuf[s] == '\t' || linebuf[s] == '\r')) s++;
        while (e > s && (linebuf[e - 1] == ' ' || linebuf[e - 1] == '\t' || linebuf[e - 1] == '\r')) e--;
        if (e - s == 6 && memcmp(linebuf + s, "window", 6) == 0) start_window();
        linelen = 0;
    }
}

static void run_timers(int64_t now) {
    while (nheap && heap[0].at <= now) {
        Timer t = timer_pop();
        if (t.kind == T_ACT) {
            act(t.conn, t.step, t.action, t.alen);
            free(t.action);
        } else if (!conns[t.conn].seated && !stopping) {
            send_text(t.conn, JOIN, sizeof JOIN - 1);
        }
    }
}

/* Where the run is: the next batch of connections, "connected", seating progress, "seated". */
static void advance(int64_t now) {
    if (phase == PH_CONNECT && welcomed_conns >= batch_end) {
        if (batch_end < total) {
            start_batch();
            return;
        }
        emit("{\"connected\": %" PRIu32 "}", total);
        phase = play ? PH_SEATING : PH_RUNNING;
        progress_at = now + 10 * NS;
    }
    if (phase == PH_SEATING) {
        if (C.seated >= (int64_t)total) {
            emit("{\"seated\": %" PRId64 "}", C.seated);
            phase = PH_RUNNING;
        } else if (now >= progress_at) { /* what a stalled seating got to (bench/cluster.py) */
            emit("{\"seating\": %" PRId64 ", \"of\": %" PRIu32 ", \"closed\": %" PRId64 "}", C.seated, total,
                 C.closed);
            progress_at += 10 * NS;
        }
    }
    if (phase == PH_RUNNING && !stdin_polled)
        for (;;) on_stdin(); /* a file: read to its end, then finish */
}

static void run(void) {
    struct epoll_event ev = {.events = EPOLLIN, .data.u32 = STDIN_TAG};
    if (epoll_ctl(ep, EPOLL_CTL_ADD, STDIN_FILENO, &ev) < 0) {
        if (errno != EPERM) die("epoll_ctl on stdin: %s", strerror(errno));
        stdin_polled = false;
    }
    start_batch();
    enum { MAX_EVENTS = 1024 };
    static struct epoll_event events[MAX_EVENTS];
    for (;;) {
        int64_t now = now_ns();
        run_timers(now);
        advance(now);
        int64_t wake = nheap ? heap[0].at : INT64_MAX;
        if (phase == PH_SEATING && progress_at < wake) wake = progress_at;
        int timeout = -1;
        if (wake != INT64_MAX) {
            int64_t ms = (wake - now + 999999) / 1000000; /* rounded up: no early wake-ups to spin on */
            timeout = ms < 0 ? 0 : ms > 60000 ? 60000 : (int)ms;
        }
        int n = epoll_wait(ep, events, MAX_EVENTS, timeout);
        if (n < 0) {
            if (errno == EINTR) continue;
            die("epoll_wait: %s", strerror(errno));
        }
        for (int k = 0; k < n; k++) {
            uint32_t tag = events[k].data.u32, what = events[k].events;
            if (tag == STDIN_TAG) {
                on_stdin();
                continue;
            }
            if (conns[tag].state == ST_CLOSED) continue;
            if (conns[tag].state == ST_CONNECTING) {
                on_writable(tag);
                continue;
            }
            if (what & (EPOLLIN | EPOLLHUP | EPOLLERR)) on_readable(tag);
            if ((what & EPOLLOUT) && conns[tag].state != ST_CLOSED) on_writable(tag);
        }
    }
}

/* -- set-up -------------------------------------------------------------------------------------- */

static void parse_target(const char *url, size_t len, Target *t) {
    char buf[512];
    if (len >= sizeof buf) die("URL too long");
    memcpy(buf, url, len);
    buf[len] = '\0';
    const char *p = buf;
    if (strncmp(p, "ws://", 5) == 0) {
        p += 5;
    } else if (strstr(p, "://")) {
        die("only ws:// URLs: %s", buf);
    }
    const char *hs = p, *he;
    if (*p == '[') {
        hs = ++p;
        he = strchr(p, ']');
        if (!he) die("bad URL: %s", buf);
        p = he + 1;
    } else {
        he = p + strcspn(p, ":/");
        p = he;
    }
    t->port = 80;
    if (*p == ':') t->port = atoi(p + 1);
    size_t hl = (size_t)(he - hs);
    if (hl == 0) hs = "127.0.0.1", hl = 9;
    if (hl >= sizeof t->host) die("host too long: %s", buf);
    for (size_t k = 0; k < hl; k++) /* lower case, as urlsplit's hostname */
        t->host[k] = (char)(hs[k] >= 'A' && hs[k] <= 'Z' ? hs[k] - 'A' + 'a' : hs[k]);
    t->host[hl] = '\0';
    char port[16];
    snprintf(port, sizeof port, "%d", t->port);
    struct addrinfo hints = {.ai_socktype = SOCK_STREAM}, *res;
    int rc = getaddrinfo(t->host, port, &hints, &res);
    if (rc != 0) die("%s: %s", t->host, gai_strerror(rc));
    memcpy(&t->addr, res->ai_addr, res->ai_addrlen);
    t->addrlen = res->ai_addrlen;
    freeaddrinfo(res);
}

static void parse_targets(const char *urls) {
    for (const char *p = urls;;) {
        const char *comma = strchr(p, ',');
        size_t len = comma ? (size_t)(comma - p) : strlen(p);
        targets = xrealloc(targets, (ntargets + 1) * sizeof *targets);
        parse_target(p, len, &targets[ntargets++]);
        if (!comma) break;
        p = comma + 1;
    }
}

/* Enough descriptors for every connection: the soft limit up to the hard one, and (as root) the hard
 * one up to what is needed. */
static void raise_nofile(uint32_t conns_wanted) {
    rlim_t want = (rlim_t)conns_wanted + 1000, need = (rlim_t)conns_wanted + 16;
    struct rlimit rl;
    if (getrlimit(RLIMIT_NOFILE, &rl) < 0) die("getrlimit: %s", strerror(errno));
    if (rl.rlim_max != RLIM_INFINITY && rl.rlim_max < want && geteuid() == 0) {
        struct rlimit up = {want, want};
        if (setrlimit(RLIMIT_NOFILE, &up) == 0) rl = up;
    }
    if (rl.rlim_cur < rl.rlim_max) {
        struct rlimit up = {rl.rlim_max, rl.rlim_max};
        if (setrlimit(RLIMIT_NOFILE, &up) == 0) rl.rlim_cur = rl.rlim_max;
    }
    if (rl.rlim_cur != RLIM_INFINITY && rl.rlim_cur < need)
        die("%" PRIu32 " connections need about %llu file descriptors; the limit is %llu (hard %llu): "
            "raise it (ulimit -n, or run as root)",
            conns_wanted, (unsigned long long)need, (unsigned long long)rl.rlim_cur,
            (unsigned long long)rl.rlim_max);
}

static int self_test(void);

static void usage(int code) {
    fputs("usage: jantaku-loadgen --url ws://HOST:PORT/ws[,...] --load play --tables T [--pace S] [--seed N]\n"
          "       jantaku-loadgen --url URLS --load idle --idle N\n"
          "       jantaku-loadgen --self-test\n",
          code ? stderr : stdout);
    exit(code);
}

int main(int argc, char **argv) {
    const char *url = NULL, *load = NULL;
    long long tables = 60, idle = 2000;
    for (int k = 1; k < argc; k++) {
        char *arg = argv[k], *value = NULL, *eq = NULL;
        if (strcmp(arg, "--self-test") == 0) return self_test();
        if (strcmp(arg, "-h") == 0 || strcmp(arg, "--help") == 0) usage(0);
        if (strncmp(arg, "--", 2) == 0 && (eq = strchr(arg, '='))) {
            *eq = '\0';
            value = eq + 1;
        } else if (k + 1 < argc) {
            value = argv[++k];
        } else {
            usage(2);
        }
        char *end = NULL;
        if (strcmp(arg, "--url") == 0) {
            url = value;
        } else if (strcmp(arg, "--load") == 0) {
            load = value;
        } else if (strcmp(arg, "--tables") == 0) {
            tables = strtoll(value, &end, 10);
        } else if (strcmp(arg, "--idle") == 0) {
            idle = strtoll(value, &end, 10);
        } else if (strcmp(arg, "--pace") == 0) {
            pace = strtod(value, &end);
        } else if (strcmp(arg, "--seed") == 0) {
            seed = (uint64_t)strtoll(value, &end, 10);
        } else {
            fprintf(stderr, "jantaku-loadgen: unknown option %s\n", arg);
            usage(2);
        }
        if (end && (*end || end == value)) die("not a number for %s: %s", arg, value);
    }
    if (!url || !load) usage(2);
    if (strcmp(load, "play") == 0) {
        play = true;
        if (tables < 0 || tables > 250000) die("--tables: 0-250000");
        total = (uint32_t)(4 * tables);
    } else if (strcmp(load, "idle") == 0) {
        if (idle < 0 || idle > 1000000) die("--idle: 0-1000000");
        total = (uint32_t)idle;
    } else {
        die("--load %s: only play and idle (the floor load is bench/hub.py's Python)", load);
    }
    if (!(pace >= 0)) die("--pace must be >= 0");
    signal(SIGPIPE, SIG_IGN);
    raise_nofile(total);
    parse_targets(url);
    ep = epoll_create1(EPOLL_CLOEXEC);
    if (ep < 0) die("epoll_create1: %s", strerror(errno));
    conns = calloc(total ? total : 1, sizeof *conns);
    C.sizes = xrealloc(NULL, MAX_SIZE_SAMPLES * sizeof *C.sizes);
    g_rcap = 4 * READ_ROOM;
    g_rbuf = xrealloc(NULL, g_rcap);
    if (!conns) die("out of memory");
    for (uint32_t i = 0; i < total; i++) {
        conns[i].fd = -1;
        conns[i].target = i % ntargets;
        uint64_t s = seed * 0xD1B54A32D192ED03ULL + i;
        conns[i].rng = rng_next(&s);
    }
    setvbuf(stdout, NULL, _IOFBF, 1 << 16);
    run();
    return 0;
}

/* -- --self-test: the frame parser, the choice, the write buffer, the timers ---------------------- */

static int failures;

#define CHECK(cond)                                                                 \
    do {                                                                            \
        if (!(cond)) {                                                              \
            fprintf(stderr, "self-test: %s:%d: %s\n", __FILE__, __LINE__, #cond);   \
            failures++;                                                             \
        }                                                                           \
    } while (0)

static size_t server_frame(uint8_t *out, int opcode, const char *payload, size_t n) {
    size_t h = 2;
    out[0] = (uint8_t)(0x80 | opcode);
    if (n < 126) {
        out[1] = (uint8_t)n;
    } else if (n < 65536) {
        out[1] = 126;
        out[2] = (uint8_t)(n >> 8);
        out[3] = (uint8_t)n;
        h = 4;
    } else {
        out[1] = 127;
        for (int k = 0; k < 8; k++) out[2 + k] = (uint8_t)((uint64_t)n >> (56 - 8 * k));
        h = 10;
    }
    memcpy(out + h, payload, n);
    return h + n;
}

static size_t client_frame(uint8_t *out, int opcode, const char *payload, size_t n) {
    size_t head = server_frame(out, opcode, payload, n) - n; /* then masked, with a zero mask */
    out[1] |= 0x80;
    memmove(out + head + 4, out + head, n);
    memset(out + head, 0, 4);
    return head + 4 + n;
}

static void reset_counters(void) {
    free(C.lat);
    uint32_t *sizes = C.sizes;
    memset(&C, 0, sizeof C);
    C.sizes = sizes;
}

static void test_choose(void) {
    struct {
        const char *legal, *want;
    } cases[] = {
        {"[{\"type\":\"pass\"},{\"type\":\"pon\",\"consumed\":[\"1z\",\"1z\"]}]", "{\"type\":\"pass\"}"},
        {"[{\"type\":\"pass\"},{\"type\":\"ron\"}]", "{\"type\":\"ron\"}"},
        {"[{\"type\":\"chi\",\"consumed\":[\"3s\",\"4s\"]},{\"type\":\"chi\",\"consumed\":[\"4s\",\"6s\"]}]",
         "{\"type\":\"chi\",\"consumed\":[\"3s\",\"4s\"]}"},
        {"[{\"type\":\"discard\",\"tile\":\"1m\",\"tsumogiri\":false},{\"type\":\"riichi\",\"tile\":\"9p\","
         "\"tsumogiri\":true},{\"type\":\"discard\",\"tile\":\"9p\",\"tsumogiri\":true},{\"type\":\"tsumo\"}]",
         "{\"type\":\"tsumo\"}"},
        {"[{\"type\":\"discard\",\"tile\":\"1m\",\"tsumogiri\":false},{\"type\":\"riichi\",\"tile\":\"9p\","
         "\"tsumogiri\":true},{\"type\":\"discard\",\"tile\":\"9p\",\"tsumogiri\":true}]",
         "{\"type\":\"discard\",\"tile\":\"9p\",\"tsumogiri\":true}"},
        {"[ { \"tile\" : \"1m\", \"type\" : \"discard\" , \"tsumogiri\":false } ]",
         "{ \"tile\" : \"1m\", \"type\" : \"discard\" , \"tsumogiri\":false }"},
        {"[{\"note\":\"a \\\"quoted\\\" ] }\",\"type\":\"kan\"},{\"type\":\"pass\"}]", "{\"type\":\"pass\"}"},
    };
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        const char *s = cases[k].legal, *as = NULL, *ae = NULL;
        bool ok = choose(s, s + strlen(s), &as, &ae);
        CHECK(ok && span_is(as, ae, cases[k].want));
    }
    const char *none = "[]", *as, *ae;
    CHECK(!choose(none, none + 2, &as, &ae));
}

static void test_timers(void) {
    uint64_t s = 42;
    for (int k = 0; k < 20000; k++)
        timer_push((Timer){.at = (int64_t)(rng_next(&s) % 1000), .conn = (uint32_t)k, .kind = T_JOIN_AGAIN});
    Timer last = {.at = -1};
    for (int k = 0; k < 20000; k++) {
        Timer t = timer_pop();
        CHECK(k == 0 || timer_before(&last, &t));
        last = t;
    }
    CHECK(nheap == 0);
}

/* The frames of a server's stream, read by the real read path from a socket in pieces of every
 * size: the counters, and the bytes the bot sent back (hello, join, act, pong), must not change. */
static void test_stream(void) {
    static uint8_t stream[200000], expect[4096], got[8192];
    size_t len = 0;
    const char *hdr = "HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n\r\n";
    memcpy(stream, hdr, strlen(hdr));
    len += strlen(hdr);
    const char *welcome = "{\"type\":\"welcome\",\"protocol\":1,\"session_id\":\"c-1\"}";
    char prompt[1024];
    int pn = snprintf(prompt, sizeof prompt,
                      "{\"type\":\"prompt\",\"match_id\":\"m-1\",\"step\":6,\"seat\":0,\"version\":6,"
                      "\"legal_actions\":[{\"type\":\"pon\",\"consumed\":[\"1z\",\"1z\"]},{\"type\":\"pass\"}],"
                      "\"deadline_ms\":5000,\"bank_ms\":10000,\"padding\":\"%0200d\"}",
                      0);
    static char big[70000];
    memcpy(big, "{\"type\":\"event\",\"x\":\"", 21);
    memset(big + 21, 'x', sizeof big - 23);
    memcpy(big + sizeof big - 2, "\"}", 2);
    const char *ack = "{\"type\":\"ack\",\"request_id\":1,\"step\":6,\"duplicate\":false}";
    const char *seated = "{\"type\":\"seated\",\"match_id\":\"m-1\",\"seat\":0}";
    size_t text_bytes = strlen(welcome) + (size_t)pn + sizeof big + strlen(ack) + 2 * strlen(seated);
    len += server_frame(stream + len, 1, welcome, strlen(welcome));
    len += server_frame(stream + len, 1, prompt, (size_t)pn);
    len += server_frame(stream + len, 9, "ping", 4);
    len += server_frame(stream + len, 1, big, sizeof big);
    len += server_frame(stream + len, 1, ack, strlen(ack));
    len += server_frame(stream + len, 1, seated, strlen(seated));
    len += server_frame(stream + len, 1, seated, strlen(seated));
    static uint8_t small[4096]; /* the same without the 64-bit frame, for the smallest pieces */
    size_t sl = 0;
    memcpy(small, hdr, strlen(hdr));
    sl += strlen(hdr);
    sl += server_frame(small + sl, 1, welcome, strlen(welcome));
    sl += server_frame(small + sl, 1, prompt, (size_t)pn);
    sl += server_frame(small + sl, 9, "ping", 4);
    sl += server_frame(small + sl, 1, ack, strlen(ack));
    sl += server_frame(small + sl, 1, seated, strlen(seated));
    sl += server_frame(small + sl, 1, seated, strlen(seated));

    size_t el = 0;
    const char *hello = "{\"type\":\"hello\",\"protocol\":1,\"auth\":{\"type\":\"guest\",\"name\":\"b0\"}}";
    const char *act_ = "{\"type\":\"act\",\"request_id\":1,\"step\":6,\"action\":{\"type\":\"pass\"}}";
    el += client_frame(expect + el, 1, hello, strlen(hello));
    el += client_frame(expect + el, 1, JOIN, strlen(JOIN));
    el += client_frame(expect + el, 1, act_, strlen(act_));
    el += client_frame(expect + el, 0xA, "ping", 4);

    size_t pieces[] = {1, 2, 3, 5, 13, 127, 1000, 4096, 65536, 1 << 20};
    for (size_t k = 0; k < sizeof pieces / sizeof pieces[0]; k++) {
        bool with_big = pieces[k] >= 100;
        const uint8_t *src = with_big ? stream : small;
        size_t srclen = with_big ? len : sl;
        int sv[2];
        CHECK(socketpair(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK, 0, sv) == 0);
        int big_buf = 1 << 20;
        setsockopt(sv[1], SOL_SOCKET, SO_SNDBUF, &big_buf, sizeof big_buf);
        setsockopt(sv[0], SOL_SOCKET, SO_RCVBUF, &big_buf, sizeof big_buf);
        reset_counters();
        memset(&conns[0], 0, sizeof conns[0]);
        conns[0].fd = sv[0];
        conns[0].state = ST_HANDSHAKE;
        struct epoll_event ev = {.events = EPOLLIN, .data.u32 = 0};
        epoll_ctl(ep, EPOLL_CTL_ADD, sv[0], &ev);
        for (size_t off = 0; off < srclen;) {
            size_t n = srclen - off < pieces[k] ? srclen - off : pieces[k];
            ssize_t w = write(sv[1], src + off, n);
            CHECK(w > 0);
            if (w <= 0) break;
            off += (size_t)w;
            while (on_readable(0) > 0) {
            }
        }
        ssize_t gn = read(sv[1], got, sizeof got);
        CHECK(gn == (ssize_t)el && memcmp(got, expect, el) == 0);
        CHECK(C.frames == (with_big ? 6 : 5) && C.welcomed == 1 && C.seated == 1 && C.acts == 1 && C.acks == 1);
        CHECK(C.window_bytes == (int64_t)(text_bytes - (with_big ? 0 : sizeof big)));
        CHECK(C.nlat == 1 && conns[0].rlen == 0 && conns[0].state == ST_OPEN);
        /* a close frame closes the connection */
        uint8_t closing[8];
        size_t cn = server_frame(closing, 8, "\x03\xe8", 2);
        CHECK(write(sv[1], closing, cn) == (ssize_t)cn);
        on_readable(0);
        CHECK(conns[0].state == ST_CLOSED && C.closed == 1);
        close(sv[1]);
    }
}

/* The socket takes less than is sent: the rest waits for EPOLLOUT, in order, none dropped. */
static void test_write_buffer(void) {
    int sv[2];
    CHECK(socketpair(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK, 0, sv) == 0);
    int tiny = 4096;
    setsockopt(sv[0], SOL_SOCKET, SO_SNDBUF, &tiny, sizeof tiny);
    memset(&conns[1], 0, sizeof conns[1]);
    conns[1].fd = sv[0];
    conns[1].state = ST_OPEN;
    conns[1].welcomed = true;
    struct epoll_event ev = {.events = EPOLLIN, .data.u32 = 1};
    epoll_ctl(ep, EPOLL_CTL_ADD, sv[0], &ev);
    static char payload[1000];
    size_t frames = 2000, framelen = 4 + 4 + sizeof payload, sent_total = frames * framelen;
    for (size_t k = 0; k < frames; k++) {
        memset(payload, 'a' + (int)(k % 26), sizeof payload);
        conn_send(1, payload, sizeof payload, 0x1);
    }
    CHECK(conns[1].wlen > 0 && conns[1].out_armed);
    static uint8_t out[4 + 4 + 1000];
    size_t received = 0, pos_in_frame = 0, frame_no = 0;
    bool ok = true;
    for (int rounds = 0; received < sent_total && rounds < 1000000; rounds++) {
        uint8_t buf[65536];
        ssize_t n = read(sv[1], buf, sizeof buf);
        for (ssize_t j = 0; j < n; j++) { /* every frame: header, zero mask, its letter */
            out[pos_in_frame++] = buf[j];
            if (pos_in_frame == framelen) {
                ok = ok && out[0] == 0x81 && out[1] == (0x80 | 126) && out[2] == 0x03 && out[3] == 0xE8 &&
                     !out[4] && !out[5] && !out[6] && !out[7] && out[8] == 'a' + frame_no % 26 &&
                     out[framelen - 1] == 'a' + frame_no % 26;
                frame_no++;
                pos_in_frame = 0;
            }
        }
        if (n > 0) received += (size_t)n;
        struct epoll_event evs[4];
        int m = epoll_wait(ep, evs, 4, 0);
        for (int j = 0; j < m; j++)
            if (evs[j].data.u32 == 1 && (evs[j].events & EPOLLOUT)) on_writable(1);
    }
    CHECK(ok && received == sent_total && frame_no == frames);
    CHECK(conns[1].wlen == 0 && !conns[1].out_armed);
    close(sv[0]);
    close(sv[1]);
}

static int self_test(void) {
    signal(SIGPIPE, SIG_IGN);
    ep = epoll_create1(EPOLL_CLOEXEC);
    total = 2;
    conns = calloc(2, sizeof *conns);
    static Target t = {.host = "127.0.0.1", .port = 0};
    targets = &t;
    ntargets = 1;
    C.sizes = xrealloc(NULL, MAX_SIZE_SAMPLES * sizeof *C.sizes);
    g_rcap = READ_ROOM;
    g_rbuf = xrealloc(NULL, g_rcap);
    play = true;
    pace = 0;
    test_choose();
    test_timers();
    test_stream();
    test_write_buffer();
    if (failures) {
        fprintf(stderr, "self-test: %d failure(s)\n", failures);
        return 1;
    }
    puts("self-test ok");
    return 0;
}

/*
 * readfile.h -- readfile backends: read a whole small file, the way a runtime
 * would, behind one interface (in the manner of redis' ae_*.c backends).
 *
 * A backend has an asynchronous form, driven by a libuv loop, and a blocking
 * form for the `sync` style.  Every style runs on every backend, so the cost of
 * a style and the cost of a backend can be told apart.
 *
 *   node4  what Node's fs.readFile does for a regular file: open, fstat, read,
 *          close, each its own uv_fs_* request, so four threadpool round trips.
 *          The blocking form makes the same four system calls on the caller's
 *          thread.
 *   fused  the same four system calls in ONE threadpool request
 *          (uv_queue_work): one round trip per read.
 *   inline the four system calls on the loop thread, from a uv_idle handle on
 *          the loop's next turn: no threadpool, and the completion is never
 *          delivered inside the call that started the read (see "Zalgo" in
 *          docs/workloads.md).
 *   uring  Linux only (uring_linux.c, liburing): openat, read and close linked
 *          in one io_uring submission per read, on direct descriptors where
 *          the kernel has them; the submissions of a loop turn go to the
 *          kernel together from a uv_prepare handle, the completions are
 *          reaped when the ring's eventfd, polled by a uv_poll_t, turns
 *          readable.  Without io_uring (old kernel, seccomp, a build without
 *          liburing, or AB_URING_DISABLE=1 set) its loop_init fails with
 *          UV_ENOSYS or the kernel's error.
 *
 * The fused and inline blocking forms are node4's (the same four system
 * calls); uring's submits one linked chain and waits for it.
 *
 * The caller owns the request memory (as with libuv): an ab_read_t is embedded
 * in, or allocated by, the caller and recovered with container_of-style casts
 * (or the `data` pointer).  A request holds at most one read at a time and can
 * be reused as soon as its callback has run.  Its public fields come first;
 * the backends' own state is AB_READ_PRIVATE_FIELDS (as libuv hides a request's
 * internals behind UV_*_PRIVATE_FIELDS): callers never touch it.
 *
 * Adding a backend: one file defining an ab_backend_t (a backend that needs
 * something per loop -- io_uring's ring and the handle that polls it -- sets
 * loop_init/loop_close), one line in backends.c's table, its private fields
 * in AB_READ_PRIVATE_FIELDS when node4's do not fit.
 */
#ifndef AB_READFILE_H
#define AB_READFILE_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include <uv.h>

/* Files up to this size are read into the request itself; larger ones into a
 * buffer the backend allocates, reuses for the next read of the same request,
 * and frees in ab_read_cleanup(). */
#define AB_READ_INLINE 64

/* A read is the whole file or fails: a file larger than this (by its fstat
 * size, or by what a file reporting size 0, like /proc/version, turns out to
 * hold) fails with UV_EFBIG, as Node's fs.readFile refuses files over its
 * kIoMaxLength (2 GiB - 1) with ERR_FS_FILE_TOO_LARGE. */
#define AB_READ_MAX ((size_t)0x7fffffff)

typedef struct ab_read_s ab_read_t;

/* Called once per ab_read_start that returned 0.  nread >= 0 is the file's
 * size (every byte up to EOF, whatever fstat said) and its bytes are at
 * req->buf; nread < 0 is a libuv error code
 * (uv_strerror(nread) says what failed, req->failed_op says where). */
typedef void (*ab_read_cb)(ab_read_t *req, ssize_t nread);

/* The backends' state of a request: not part of the API.  The one request
 * a read has in flight is node4's uv_fs_t (allocated per read: at 440 bytes
 * it would double every backend's record) or fused's uv_work_t. */
#define AB_READ_PRIVATE_FIELDS                                              \
  union {                                                                   \
    uv_fs_t *fs;           /* node4: the one uv_fs_* request in flight */   \
    uv_work_t work;        /* fused: the one threadpool request */          \
  } u;                                                                      \
  ab_read_t *next;         /* inline, uring: the backend's queue of reads */\
  int slot;                /* uring: the direct descriptor (or plain fd) */ \
  int cqes;                /* uring: completions still to come */           \
  uv_buf_t iov;                                                             \
  uv_file fd;                                                               \
  ab_read_cb cb;                                                            \
  const char *path;                                                         \
  char *heap;              /* buffer for files larger than AB_READ_INLINE */\
  size_t heap_cap;                                                          \
  size_t size;             /* bytes expected (from fstat); 0: until EOF */  \
  size_t len;              /* bytes read so far */                          \
  size_t cap;              /* room at buf (inline or heap) */               \
  char inline_buf[AB_READ_INLINE];

struct ab_read_s {
  void *data;              /* the caller's; untouched by the backend */
  const char *buf;         /* the bytes read (valid in the callback) */
  ssize_t result;          /* the last read's outcome, as the callback got it
                              (or read_sync returned): size or libuv error */
  const char *failed_op;   /* "open", "fstat", "read" or "close" on error */
  AB_READ_PRIVATE_FIELDS
};

typedef struct ab_backend_s {
  const char *name;
  /* Prepares the backend on `loop` before its first read; NULL when there is
   * nothing to prepare.  Returns 0 or a libuv error code. */
  int (*loop_init)(uv_loop_t *loop);
  /* Undoes loop_init (its handles close at the loop's next run); NULL with it. */
  void (*loop_close)(uv_loop_t *loop);
  /* Starts reading `path` on `loop`; returns 0, or a libuv error code, in
   * which case `cb` is never called. */
  int (*start)(uv_loop_t *loop, ab_read_t *req, const char *path, ab_read_cb cb);
  /* Reads `path` with blocking system calls on this thread; returns the size
   * (bytes at req->buf) or a libuv error code. */
  ssize_t (*read_sync)(ab_read_t *req, const char *path);
  /* After loop_init failed: why, in words (the kernel, the build, the
   * environment), or NULL; NULL for a backend whose loop_init cannot fail
   * that way. */
  const char *(*unavailable)(void);
  /* 1 when its reads go through libuv's threadpool (the driver starts the
   * pool before the clock), 0 when they never do. */
  int threadpool;
} ab_backend_t;

/* Looks a backend up by name; NULL when unknown. */
const ab_backend_t *ab_backend_find(const char *name);

/* The name of backend k (0, 1, ...), NULL past the last; node4 is first, the
 * default. */
const char *ab_backend_name(size_t k);

/* Frees what a finished request holds (a heap buffer).  Safe to call twice. */
void ab_read_cleanup(ab_read_t *req);

extern const ab_backend_t ab_backend_node4;
extern const ab_backend_t ab_backend_fused;
extern const ab_backend_t ab_backend_inline;
#ifdef __linux__
extern const ab_backend_t ab_backend_uring;
#endif

/* ---- for the backends only ------------------------------------------------ */

/* Threadpool round trips the backends have started (node4: 4 per read,
 * fused: 1): the JSON line's threadpool_trips comes from the harness's
 * counters (ab_counters, harness.h), which the backends increment. */

/* Resets req for a new read of `path` (result, failed_op, buf at the inline
 * buffer, cb). */
void ab__read_reset(ab_read_t *req, const char *path, ab_read_cb cb);

/* Makes room for a file of `size` bytes (0: unknown, read until EOF): 0,
 * UV_EFBIG past AB_READ_MAX, or UV_ENOMEM. */
int ab__read_prepare(ab_read_t *req, uint64_t size);

/* Points req's iov at the room for the next read (growing the buffer of a file
 * of unknown size when it is full): 0, UV_EFBIG or UV_ENOMEM. */
int ab__read_next_iov(ab_read_t *req);

/* True when nothing more is to be read: the fstat size is in. */
int ab__read_complete(const ab_read_t *req);

/* open, fstat, read until done, close with blocking system calls on this
 * thread: the size, or a libuv error code with req->failed_op set. */
ssize_t ab__read_blocking(ab_read_t *req, const char *path);

/* Exit 3 (AB_EXIT_ENV) with one line on stderr, before anything is timed, when
 * the file at path cannot be read whole: missing, not a regular file (a FIFO
 * would block), unreadable; 0 otherwise, with *len (when not NULL) its size.
 * readfile's and cacheloop's fixture check (c/readfile/workload.c). */
int ab_readfile_check_fixture(const char *prog, const char *path, size_t *len);

#endif /* AB_READFILE_H */

/*
 * uring_linux.c -- the "uring" backend (Linux): a read is openat, read and
 * close linked in ONE io_uring submission, on a direct descriptor where the
 * kernel has them, so the kernel runs the three without coming back to the
 * process in between and without a threadpool.
 *
 * Per loop (loop_init): a ring of RING_ENTRIES submissions, an eventfd
 * registered with io_uring_register_eventfd and polled by a uv_poll_t, a
 * uv_prepare_t that submits everything prepared during a loop turn in one
 * io_uring_enter just before the loop polls (submissions batched per turn),
 * and a sparse table of direct descriptors (io_uring_register_files_sparse).
 *
 * The chain of a read, with direct descriptors:
 *   openat  into slot s of the table           IOSQE_IO_LINK
 *   read    from slot s (IOSQE_FIXED_FILE)     IOSQE_IO_HARDLINK
 *   close   slot s
 * The slot is chosen here, not by the kernel (IORING_FILE_INDEX_ALLOC would
 * return it only in openat's completion, too late for the read linked
 * behind it).  A failed openat cancels the read and the close (-ECANCELED);
 * a failed or short read does not stop the close (the hard link).  Without
 * direct descriptors (a kernel before 5.15, or AB_URING_NODIRECT=1 for the
 * tests) the openat is submitted alone and read + close, linked, when it
 * completes: two submissions per read.
 *
 * The read asks for as many bytes as the request's buffer holds (no fstat in
 * the chain): fewer bytes back means EOF, a full buffer that the file may be
 * longer, and the read is done again, whole, with a buffer twice as large.
 *
 * At most MAX_CHAINS reads are in the kernel at once (three completions each
 * must fit in the completion ring); the others wait in a queue for a slot.
 *
 * Unavailable (loop_init fails, the program exits 3 with one line): built
 * without liburing (no AB_HAVE_LIBURING), a kernel without io_uring or that
 * refuses it (ENOSYS, EPERM from seccomp or kernel.io_uring_disabled), or
 * AB_URING_DISABLE=1 in the environment, which simulates that for tests.
 */
#include "readfile.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *ab_uring_why; /* why loop_init failed, for the message */

static const char *uring_unavailable(void) { return ab_uring_why; }

/* True when the variable is set to something other than "" or "0". */
static int env_set(const char *name) {
  const char *v = getenv(name);
  return v != NULL && *v != '\0' && strcmp(v, "0") != 0;
}

/* AB_URING_DISABLE=1: refuse as a kernel without io_uring would (for tests). */
static int uring_disabled(void) {
  if (!env_set("AB_URING_DISABLE")) return 0;
  ab_uring_why = "io_uring is disabled (AB_URING_DISABLE is set)";
  return 1;
}

#ifndef AB_HAVE_LIBURING

static int uring_loop_init(uv_loop_t *loop) {
  (void)loop;
  if (uring_disabled()) return UV_ENOSYS;
  ab_uring_why = "this program was built without liburing (install liburing-dev and rebuild)";
  return UV_ENOSYS;
}

static void uring_loop_close(uv_loop_t *loop) { (void)loop; }

static int uring_start(uv_loop_t *loop, ab_read_t *req, const char *path, ab_read_cb cb) {
  (void)loop, (void)req, (void)path, (void)cb;
  return UV_ENOSYS;
}

static ssize_t uring_read_sync(ab_read_t *req, const char *path) {
  (void)path;
  req->failed_op = "open";
  return req->result = UV_ENOSYS;
}

#else /* AB_HAVE_LIBURING */

#include <fcntl.h>
#include <liburing.h>
#include <sys/eventfd.h>
#include <sys/resource.h>
#include <unistd.h>

#define RING_ENTRIES 1024
#define MAX_CHAINS (RING_ENTRIES / 3)

enum { OP_OPEN = 0, OP_READ = 1, OP_CLOSE = 2, OP_MASK = 3 };

static struct {
  uv_loop_t *loop;             /* NULL: not prepared */
  struct io_uring ring;
  int efd;
  uv_poll_t poll;
  uv_prepare_t prepare;
  int direct;                  /* a sparse table of direct descriptors */
  unsigned chains;             /* reads in the kernel (or prepared for it) */
  unsigned max_chains;
  int free_slots[MAX_CHAINS];
  unsigned nfree;
  ab_read_t *wait_head, *wait_tail; /* reads waiting for room */
} U;

static uint64_t tag(ab_read_t *req, int op) { return (uint64_t)(uintptr_t)req | (uint64_t)op; }

/* The buffer for the next attempt: the heap buffer when an earlier read of
 * this request made one, else the inline one. */
static void attempt_buffer(ab_read_t *req) {
  req->len = 0;
  req->size = 0;
  if (req->heap != NULL && req->heap_cap > AB_READ_INLINE) {
    req->buf = req->heap;
    req->cap = req->heap_cap;
  } else {
    req->buf = req->inline_buf;
    req->cap = AB_READ_INLINE;
  }
}

static struct io_uring_sqe *sqe_get(void) {
  struct io_uring_sqe *sqe = io_uring_get_sqe(&U.ring);
  if (sqe == NULL) { /* cannot happen: MAX_CHAINS * 3 < RING_ENTRIES */
    io_uring_submit(&U.ring);
    sqe = io_uring_get_sqe(&U.ring);
  }
  return sqe;
}

/* read + close of an open descriptor (a slot or, without direct descriptors,
 * a plain fd), the read hard-linked to the close. */
static void prep_read_close(ab_read_t *req) {
  struct io_uring_sqe *sqe = sqe_get();
  io_uring_prep_read(sqe, req->slot, (char *)req->buf, (unsigned)req->cap, 0);
  io_uring_sqe_set_data64(sqe, tag(req, OP_READ));
  sqe->flags |= IOSQE_IO_HARDLINK | (U.direct ? IOSQE_FIXED_FILE : 0);
  sqe = sqe_get();
  if (U.direct) io_uring_prep_close_direct(sqe, (unsigned)req->slot);
  else io_uring_prep_close(sqe, req->slot);
  io_uring_sqe_set_data64(sqe, tag(req, OP_CLOSE));
}

/* Puts req's chain in the submission queue (the open and, with direct
 * descriptors, the linked read and close). */
static void prep_chain(ab_read_t *req) {
  struct io_uring_sqe *sqe = sqe_get();
  req->cqes = 3;
  if (U.direct) {
    io_uring_prep_openat_direct(sqe, AT_FDCWD, req->path, O_RDONLY, 0, (unsigned)req->slot);
    sqe->flags |= IOSQE_IO_LINK;
    io_uring_sqe_set_data64(sqe, tag(req, OP_OPEN));
    prep_read_close(req);
  } else {
    io_uring_prep_openat(sqe, AT_FDCWD, req->path, O_RDONLY | O_CLOEXEC, 0);
    io_uring_sqe_set_data64(sqe, tag(req, OP_OPEN));
  }
}

/* The end of a loop turn, before it polls: everything prepared goes to the
 * kernel in one io_uring_enter. */
static void prepare_cb(uv_prepare_t *h) {
  int rc;
  do rc = io_uring_submit(&U.ring);
  while (rc == -EINTR);
  if (rc == -EAGAIN || rc == -EBUSY) return; /* the kernel is short: next turn */
  if (rc < 0) {
    fprintf(stderr, "readfile: io_uring_submit: %s\n", strerror(-rc));
    exit(3);
  }
  uv_prepare_stop(h);
}

/* A chain is (about to be) in the ring: submit it at the end of this turn. */
static void want_submit(void) {
  if (!uv_is_active((uv_handle_t *)&U.prepare)) uv_prepare_start(&U.prepare, prepare_cb);
}

/* Gives req a slot and queues its chain; false when every slot is taken. */
static int launch(ab_read_t *req) {
  if (U.chains == U.max_chains) return 0;
  U.chains++;
  req->slot = U.direct ? U.free_slots[--U.nfree] : -1;
  attempt_buffer(req);
  prep_chain(req);
  return 1;
}

/* What one completion says about its read.  Returns 1 when the read's last
 * completion is in. */
static int on_cqe(ab_read_t *req, int op, int res) {
  switch (op) {
  case OP_OPEN:
    if (res < 0) {
      req->result = res;
      req->failed_op = "open";
      if (!U.direct) req->cqes -= 2; /* nothing was linked behind it */
    } else if (!U.direct) {
      req->slot = res;
      prep_read_close(req);
      if (req->cb != NULL) want_submit(); /* the sync form submits itself */
    }
    break;
  case OP_READ:
    if (res == -ECANCELED && req->result < 0) break; /* after a failed open */
    if (res < 0) {
      req->result = res;
      req->failed_op = "read";
    } else {
      req->len = (size_t)res;
      req->result = res;
    }
    break;
  case OP_CLOSE:
    if (res < 0 && res != -ECANCELED && req->result >= 0) {
      req->result = res;
      req->failed_op = "close";
    }
    if (!U.direct) req->slot = -1;
    break;
  }
  return --req->cqes == 0;
}

/* The read's chain is over: its slot is free.  Returns 1 when it is done,
 * 0 when it was queued again with a larger buffer (the buffer was full). */
static int chain_over(ab_read_t *req) {
  U.chains--;
  if (U.direct) U.free_slots[U.nfree++] = req->slot;
  if (req->result >= 0 && req->len == req->cap) {
    int rc = req->cap >= AB_READ_MAX ? UV_EFBIG : ab__read_prepare(req, (uint64_t)req->cap * 2);
    if (rc != 0) {
      req->result = rc;
      req->failed_op = "read";
      return 1;
    }
    /* A slot was just freed: launch() cannot fail.  It takes the heap
     * buffer just made. */
    launch(req);
    if (req->cb != NULL) want_submit(); /* the sync form submits itself */
    return 0;
  }
  return 1;
}

/* Starts reads that waited for a slot. */
static void launch_waiting(void) {
  while (U.wait_head != NULL && U.chains < U.max_chains) {
    ab_read_t *req = U.wait_head;
    U.wait_head = req->next;
    if (U.wait_head == NULL) U.wait_tail = NULL;
    req->next = NULL;
    launch(req);
    want_submit();
  }
}

static void poll_cb(uv_poll_t *h, int status, int events) {
  struct io_uring_cqe *cqe;
  uint64_t count;
  ssize_t r;
  (void)status, (void)events;
  do r = read(U.efd, &count, sizeof(count)); /* EAGAIN: nothing to clear */
  while (r < 0 && errno == EINTR);
  while (io_uring_peek_cqe(&U.ring, &cqe) == 0) {
    uint64_t data = io_uring_cqe_get_data64(cqe);
    ab_read_t *req = (ab_read_t *)(uintptr_t)(data & ~(uint64_t)OP_MASK);
    int op = (int)(data & OP_MASK), res = cqe->res;
    io_uring_cqe_seen(&U.ring, cqe);
    if (on_cqe(req, op, res) && chain_over(req)) {
      launch_waiting();
      req->cb(req, req->result);
    }
  }
  if (U.chains == 0 && U.wait_head == NULL) uv_poll_stop(h);
}

/* Builds with a smaller table when RLIMIT_NOFILE is below MAX_CHAINS: the
 * kernel refuses a file table larger than it. */
static unsigned table_size(void) {
  struct rlimit rl;
  if (getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur != RLIM_INFINITY &&
      rl.rlim_cur < MAX_CHAINS)
    return rl.rlim_cur > 0 ? (unsigned)rl.rlim_cur : 1;
  return MAX_CHAINS;
}

static int uring_loop_init(uv_loop_t *loop) {
  struct io_uring_probe *probe;
  unsigned k, n;
  int rc;
  if (U.loop != NULL) return UV_EBUSY;
  if (uring_disabled()) return UV_ENOSYS;
  memset(&U.ring, 0, sizeof(U.ring));
  if ((rc = io_uring_queue_init(RING_ENTRIES, &U.ring, 0)) < 0) {
    ab_uring_why = rc == -ENOSYS ? "this kernel has no io_uring"
                 : rc == -EPERM ? "io_uring is refused here (seccomp, a container, or "
                                  "kernel.io_uring_disabled)"
                 : rc == -ENOMEM ? "no memory for the ring (RLIMIT_MEMLOCK too low?)"
                 : "io_uring_queue_init failed";
    return rc;
  }
  /* The three operations of the chain must be there (Linux 5.6+). */
  probe = io_uring_get_probe_ring(&U.ring);
  rc = probe == NULL || !io_uring_opcode_supported(probe, IORING_OP_OPENAT) ||
       !io_uring_opcode_supported(probe, IORING_OP_READ) ||
       !io_uring_opcode_supported(probe, IORING_OP_CLOSE) ? UV_ENOSYS : 0;
  if (probe != NULL) io_uring_free_probe(probe);
  if (rc != 0) {
    ab_uring_why = "this kernel's io_uring lacks openat, read or close (Linux 5.6+)";
    io_uring_queue_exit(&U.ring);
    return rc;
  }
  U.efd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
  if (U.efd < 0 || (rc = io_uring_register_eventfd(&U.ring, U.efd)) < 0) {
    rc = U.efd < 0 ? -errno : rc;
    ab_uring_why = "cannot register an eventfd with the ring";
    if (U.efd >= 0) close(U.efd);
    io_uring_queue_exit(&U.ring);
    return rc;
  }
  io_uring_register_ring_fd(&U.ring); /* a cheaper io_uring_enter; optional */
  n = table_size();
  U.direct = !env_set("AB_URING_NODIRECT") && io_uring_register_files_sparse(&U.ring, n) == 0;
  U.max_chains = U.direct ? n : MAX_CHAINS;
  U.nfree = 0;
  if (U.direct)
    for (k = n; k-- > 0;) U.free_slots[U.nfree++] = (int)k;
  U.chains = 0;
  U.wait_head = U.wait_tail = NULL;
  if ((rc = uv_poll_init(loop, &U.poll, U.efd)) != 0) {
    ab_uring_why = "cannot poll the ring's eventfd";
    io_uring_queue_exit(&U.ring);
    close(U.efd);
    return rc;
  }
  uv_prepare_init(loop, &U.prepare);
  U.loop = loop;
  return 0;
}

static void uring_loop_close(uv_loop_t *loop) {
  if (U.loop != loop) return;
  uv_close((uv_handle_t *)&U.poll, NULL);
  uv_close((uv_handle_t *)&U.prepare, NULL);
  io_uring_queue_exit(&U.ring); /* unregisters the eventfd and the table */
  close(U.efd);
  U.loop = NULL;
}

static int uring_start(uv_loop_t *loop, ab_read_t *req, const char *path, ab_read_cb cb) {
  int rc;
  if (loop != U.loop) return UV_EINVAL; /* loop_init was not called on it */
  if (!uv_is_active((uv_handle_t *)&U.poll) &&
      (rc = uv_poll_start(&U.poll, UV_READABLE, poll_cb)) != 0)
    return rc;
  ab__read_reset(req, path, cb);
  req->next = NULL;
  if (launch(req)) {
    want_submit();
  } else {
    if (U.wait_tail != NULL) U.wait_tail->next = req;
    else U.wait_head = req;
    U.wait_tail = req;
  }
  return 0;
}

/* The blocking form: the same chain, submitted at once and waited for.
 * The sync style never runs the loop, so every completion is this read's. */
static ssize_t uring_read_sync(ab_read_t *req, const char *path) {
  struct io_uring_cqe *cqe;
  int rc;
  if (U.loop == NULL) { /* loop_init failed or was not called */
    req->failed_op = "open";
    return req->result = UV_ENOSYS;
  }
  ab__read_reset(req, path, NULL);
  launch(req);
  for (;;) {
    uint64_t data;
    int op, res;
    if ((rc = io_uring_submit_and_wait(&U.ring, 1)) < 0 && rc != -EINTR) {
      req->failed_op = "read";
      return req->result = rc;
    }
    if (io_uring_peek_cqe(&U.ring, &cqe) != 0) continue;
    data = io_uring_cqe_get_data64(cqe);
    op = (int)(data & OP_MASK);
    res = cqe->res;
    io_uring_cqe_seen(&U.ring, cqe);
    if (on_cqe(req, op, res) && chain_over(req)) break;
  }
  return req->result >= 0 ? (req->result = (ssize_t)req->len) : req->result;
}

#endif /* AB_HAVE_LIBURING */

const ab_backend_t ab_backend_uring = {
  "uring",
  uring_loop_init,
  uring_loop_close,
  uring_start,
  uring_read_sync,
  uring_unavailable,
  0     /* the kernel runs its reads: no threadpool */
};

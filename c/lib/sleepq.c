/*
 * sleepq.c -- many sleeps of one duration on one libuv timer (sleepq.h).
 */
#include "sleepq.h"

#include "microtask.h"

/* Detaches and returns the queue's first waiter. */
static ab_sleep_t *pop(ab_sleepq_t *q) {
  ab_sleep_t *s = q->head;
  q->head = s->next;
  if (q->head == NULL) q->tail = NULL;
  q->waiting--;
  return s;
}

/* Wakes s: the queue's callback, then the ticks and microtasks it queued. */
static void wake(ab_sleepq_t *q, ab_sleep_t *s) {
  s->next = NULL;
  q->cb(s);
  ab_microtasks_drain();
}

/* The timer fired: wakes every waiter that is due and was queued before this
 * callback began (a wake-up may queue more), then re-arms for the next. */
static void on_timer(uv_timer_t *timer) {
  ab_sleepq_t *q = (ab_sleepq_t *)((char *)timer - offsetof(ab_sleepq_t, timer));
  uint64_t now = uv_now(timer->loop);
  ab_sleep_t *last = q->tail;
  while (q->head != NULL && q->head->due <= now) {
    ab_sleep_t *s = pop(q);
    wake(q, s);
    if (s == last) break;
  }
  if (q->head != NULL) {
    uint64_t due = q->head->due;
    /* A sleep started by a wake-up has read the clock afresh: arm from the
     * loop's time as it is now, not as it was when this callback began. */
    now = uv_now(timer->loop);
    uv_timer_start(timer, on_timer, due > now ? due - now : 1, 0);
  }
}

/* delay 0: wakes what was queued when this turn began; what those wake-ups
 * queue waits for the next turn. */
static void on_idle(uv_idle_t *idle) {
  ab_sleepq_t *q = (ab_sleepq_t *)((char *)idle - offsetof(ab_sleepq_t, idle));
  ab_sleep_t *s = q->head;
  size_t n = q->waiting;
  q->head = q->tail = NULL;
  q->waiting = 0;
  while (n-- > 0) {
    ab_sleep_t *next = s->next; /* s may sleep again from its callback */
    wake(q, s);
    s = next;
  }
  if (q->head == NULL) uv_idle_stop(idle);
}

int ab_sleepq_init(uv_loop_t *loop, ab_sleepq_t *q, uint64_t delay_ms, ab_sleep_cb cb) {
  int rc;
  q->delay_ms = delay_ms;
  q->cb = cb;
  q->head = q->tail = NULL;
  q->waiting = 0;
  if ((rc = uv_timer_init(loop, &q->timer)) != 0) return rc;
  if ((rc = uv_idle_init(loop, &q->idle)) != 0) {
    uv_close((uv_handle_t *)&q->timer, NULL);
    return rc;
  }
  return 0;
}

int ab_sleepq_start(ab_sleepq_t *q, ab_sleep_t *s) {
  int rc = 0;
  s->next = NULL;
  s->due = 0; /* delay 0: the next turn, whatever the time */
  if (q->delay_ms > 0) {
    /* The loop's time is cached from the start of its turn: a sleep counts
     * from the moment it starts, as setTimeout and time.Sleep do. */
    uv_update_time(q->timer.loop);
    s->due = uv_now(q->timer.loop) + q->delay_ms;
  }
  if (q->head == NULL) {
    if (q->delay_ms == 0)
      rc = uv_is_active((uv_handle_t *)&q->idle) ? 0 : uv_idle_start(&q->idle, on_idle);
    else if (!uv_is_active((uv_handle_t *)&q->timer))
      rc = uv_timer_start(&q->timer, on_timer, q->delay_ms, 0);
    if (rc != 0) return rc;
  }
  if (q->tail != NULL) q->tail->next = s;
  else q->head = s;
  q->tail = s;
  q->waiting++;
  return 0;
}

void ab_sleepq_close(ab_sleepq_t *q) {
  uv_close((uv_handle_t *)&q->timer, NULL);
  uv_close((uv_handle_t *)&q->idle, NULL);
}

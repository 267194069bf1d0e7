// limit.mjs -- a small concurrency limiter for promise-returning tasks, the
// kind of helper a bounded async/await program pulls in from a package,
// written here so the suite has no dependencies.
//
//   const limit = limiter(64);
//   const data = await limit(() => fsp.readFile(file));
//
// limit(task) returns a promise of the task's result.  At most k tasks run at
// once; the rest wait in a FIFO queue and start, in order, as running ones
// settle (fulfilled or rejected alike).

export function limiter(k) {
  if (!Number.isInteger(k) || k < 1) throw new RangeError(`limiter: k must be a positive integer, got ${k}`);
  const queue = [];
  let head = 0; // queue[head..] still waits; an index is cheaper than shift()
  let active = 0;

  function startNext() {
    if (active >= k || head === queue.length) return;
    const job = queue[head];
    queue[head++] = undefined;
    if (head === queue.length) {
      queue.length = 0;
      head = 0;
    }
    active++;
    let result;
    try {
      result = Promise.resolve(job.task());
    } catch (err) {
      result = Promise.reject(err);
    }
    result.then(job.resolve, job.reject).finally(() => {
      active--;
      startNext();
    });
  }

  function limit(task) {
    return new Promise((resolve, reject) => {
      queue.push({ task, resolve, reject });
      startNext();
    });
  }
  limit.active = () => active;
  limit.pending = () => queue.length - head;
  return limit;
}

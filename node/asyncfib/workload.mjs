// workload.mjs -- asyncfib (seed 004) for the Node.js variants: an iteration
// is one repetition of top-level calls fib(0), ..., fib(M-1), recursively
// (M = --max-recursive) or with a loop (M = --max-iterative); fib(0) =
// fib(1) = 1.
// Every result is checked against a table made by the plain loop, and the
// pass's calls and the sum of its results (the line's calls and checksum)
// against the plain computation's.  M is at most 78 in every language, so
// that fib(M-1) is exact in a JavaScript number; a sum past 2^53 is rounded
// the same way in the check as in the pass.  Each variant file writes fib in its
// style (the seed's fibonacci_10, fibonacci_20, fibonacci_async_10,
// fibonacci_async_20 and fibonacci_promise) and hands it to plainPass or
// awaitPass, and gives it as the variant's `fib` for seed 004's own
// measurement (seedPass, through node/asyncfib/lib/rssclock.mjs); every fib
// counts its calls in `counter.calls`.
import { defineWorkload } from '../lib/contract.mjs';

export const asyncfib = defineWorkload({
  name: 'asyncfib',
  unit: 'repetition',
  flags: {
    'max-recursive': {
      value: 10, integer: true, range: [1, 40], arg: 'M',
      about: 'recursive shape: top-level calls are fib(0..M-1), 1 <= M <= 40',
    },
    'max-iterative': {
      value: 10, integer: true, range: [1, 78], arg: 'M',
      about: 'iterative shape: top-level calls are fib(0..M-1), 1 <= M <= 78',
    },
  },
  verifier() {
    return (i, bad) => (bad === null ? 0 : `fib(${bad.n}) returned ${bad.got}, expected ${bad.want}`);
  },
  fields: (pass) => ({ calls: pass.calls, checksum: pass.checksum }),
});

/** The calls every fib counts. */
export const counter = { calls: 0 };

/** fib(0..m-1) by the plain loop: exact as numbers up to fib(77), below 2^53. */
function table(m) {
  const t = [1, 1];
  while (t.length < m) t.push(t[t.length - 1] + t[t.length - 2]);
  return t;
}

/** What each call of a pass of `shape` must give: its M and the table (O(M),
 * before the first call). */
function expected(pass, shape) {
  const m = shape === 'recursive' ? pass.maxRecursive : pass.maxIterative;
  return { m, fib: table(m) };
}

/**
 * Checks the pass's totals against the plain computation's and leaves them on
 * the pass for the line.  Called after the N-th check, which stopped the clock:
 * the O(N * M) plain computation is not timed, as in C and Go.
 */
function settle(pass, shape, want, sum) {
  let calls = 0;
  let plain = 0;
  for (let i = 0; i < pass.n * want.m; i++) {
    plain += want.fib[i % want.m];
    calls += shape === 'recursive' ? 2 * want.fib[i % want.m] - 1 : 1;
  }
  if (counter.calls !== calls) {
    pass.fail(pass.n - 1, `made ${counter.calls} calls, the plain computation makes ${calls}`);
  }
  if (sum !== plain) pass.fail(pass.n - 1, `results sum to ${sum}, the plain computation's to ${plain}`);
  pass.calls = counter.calls;
  pass.checksum = sum;
}

/** A pass of plain calls: fib(n) returns its number. */
export function plainPass(pass, shape, fib) {
  const want = expected(pass, shape);
  counter.calls = 0;
  let sum = 0;
  pass.begin();
  for (let i = 0; i < pass.n; i++) {
    let bad = null;
    for (let n = 0; n < want.m; n++) {
      const got = fib(n);
      sum += got;
      if (got !== want.fib[n] && !bad) bad = { n, got, want: want.fib[n] };
    }
    pass.check(i, null, bad);
  }
  settle(pass, shape, want, sum);
}

/** A pass of async calls: fib(n) returns a promise; each is awaited. */
export async function awaitPass(pass, shape, fib) {
  const want = expected(pass, shape);
  counter.calls = 0;
  let sum = 0;
  pass.begin();
  for (let i = 0; i < pass.n; i++) {
    let bad = null;
    for (let n = 0; n < want.m; n++) {
      const got = await fib(n);
      sum += got;
      if (got !== want.fib[n] && !bad) bad = { n, got, want: want.fib[n] };
    }
    pass.check(i, null, bad);
  }
  settle(pass, shape, want, sum);
}

/**
 * The resident set in bytes, read as seed 004 read it: process.memoryUsage.rss()
 * (Node 14.18 and 15.6 on), else the whole process.memoryUsage() of older Nodes.
 */
const readRss = process.memoryUsage.rss ? () => process.memoryUsage.rss() : () => process.memoryUsage().rss;

/**
 * A pass in seed 004's own measurement (node/asyncfib/lib/rssclock.mjs): each
 * repetition is a section of its own, timed from just before a read of the
 * resident set to just after a second read that follows its calls, so both
 * reads are inside the clock, and the pass's time is the sum of its sections
 * (pass.pause between them).  Between two sections nothing is timed but an
 * await, as the seed awaited each measurement's async function.  `awaits`:
 * the fib returns a promise, which each call awaits.
 */
export async function seedPass(pass, shape, fib, awaits) {
  const want = expected(pass, shape);
  counter.calls = 0;
  let sum = 0;
  pass.begin();
  for (let i = 0; i < pass.n; i++) {
    if (i > 0) pass.resume();
    let bad = null;
    readRss();
    for (let n = 0; n < want.m; n++) {
      const got = awaits ? await fib(n) : fib(n);
      sum += got;
      if (got !== want.fib[n] && !bad) bad = { n, got, want: want.fib[n] };
    }
    readRss();
    pass.check(i, null, bad);
    if (i + 1 < pass.n) {
      pass.pause();
      await null;
    }
  }
  settle(pass, shape, want, sum);
}

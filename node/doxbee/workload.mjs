// workload.mjs -- doxbee, bluebird's benchmark of fake database transactions
// (petkaantonov/bluebird, benchmark/; seed 003).  An upload is a transaction
// of fake operations, each completing after --delay-ms T on a timer
// (setTimeout; T = 0: setImmediate, the next turn of the loop) with the
// value the fake database gives it.  A pass starts all N uploads at once.
//
//   sequential shape  blob put and file lookup at once, joined (bluebird's
//                     promise version joins them; the lookup misses, so the
//                     create branch runs), then version insert, query
//                     creation (synchronous), query execution, file-version
//                     insert, file update, commit: 8 results per upload, 6
//                     waits one after another
//   parallel shape    --queries P file-version inserts at once, joined, then
//                     commit: P + 1 results
//
// Every result is checked before the upload goes on; an upload verifies when
// it committed once and every result of it was checked.  Every style (and
// every language: c/doxbee, go/internal/doxbee) does the same work: the put
// and the lookup are joined in each, and the commit is waited for and
// checked in each (bluebird's promise versions start it without waiting;
// its sequential callbacks wait for it).  The line adds
// commits, checked and ops_per_upload (startAll's totals on the pass).  The
// styles share the transactions below; only the way an operation is waited
// for differs: callbacks, native promises (new Promise around setTimeout),
// async/await on those, and bluebird's Promise.promisify of the callback fake
// with its Promise.all (node/package.json pins it; `make deps` installs it).
// Seed 003's own programs, on bluebird's fakes and lifters and without
// waiting for the commit, are lib/fakes.mjs's (backends fakes.bluebird and
// fakes.native); their uploads say so (commitLater): the verifier checks that
// the commit started, and its answer is checked after the clock.
import { defineWorkload } from '../lib/contract.mjs';

const MAX_DELAY_MS = 86400000;
const MAX_QUERIES = 1000000;

export const PUT = 0, LOOKUP = 1, VERSION = 2, CREATE = 3, EXEC = 4, FILEVERSION = 5, UPDATE = 6,
  COMMIT = 7, STEPS = 8;
export const KIND_NAMES = ['blob put', 'file lookup', 'version insert', 'query creation', 'query execution',
  'file-version insert', 'file update', 'commit'];

export const doxbee = defineWorkload({
  name: 'doxbee',
  unit: 'upload',
  flags: {
    'delay-ms': { value: 1, integer: true, range: [0, MAX_DELAY_MS], arg: 'T', about: 'every fake operation completes after T ms (0: on the next loop turn)' },
    queries: { value: 25, integer: true, range: [1, MAX_QUERIES], arg: 'P', about: 'queries at once per upload in the parallel shape' },
  },
  verifier() {
    return (i, up) => {
      // Seed 003's own programs (lib/fakes.mjs) finish an upload once its
      // commit has started; the commit's answer is checked after the pass's
      // last upload, outside the clock.
      const commits = up.commitLater ? up.commitsStarted : up.commits;
      const checked = up.commitLater ? up.checked + 1 : up.checked;
      if (commits !== 1) return `the upload ${up.commitLater ? 'started its commit' : 'committed'} ${commits} times, expected once`;
      if (checked !== up.perUpload) return `${checked} results of the upload were checked, expected ${up.perUpload}`;
      return 0;
    };
  },
  fields: (pass) => ({ commits: pass.commits, checked: pass.checked, ops_per_upload: pass.opsPerUpload }),
});

/** The value operation `kind` (index j) of upload i completes with; the lookup finds nothing. */
export function expected(i, kind, j = 0) {
  return kind === LOOKUP ? 0 : (i * 16 + kind) * (MAX_QUERIES + 1) + j + 1;
}

/** An upload's record: what it checked and committed. */
export class Upload {
  constructor(i, perUpload) {
    this.i = i;
    this.perUpload = perUpload;
    this.checked = 0;
    this.commits = 0;
  }

  /** Checks one result; throws when it is wrong (a rejection, or an error to the callback). */
  verify(kind, j, got) {
    const want = expected(this.i, kind, j);
    if (got !== want) throw new Error(`${KIND_NAMES[kind]} ${j} returned ${got}, expected ${want}`);
    this.checked++;
  }

  committed(got) {
    this.verify(COMMIT, 0, got);
    this.commits++;
    return this;
  }
}

/** The fake operation in callback form: cb(null, value) after the delay. */
export function callbackFake(delayMs) {
  if (delayMs > 0) return (value, cb) => { setTimeout(cb, delayMs, null, value); };
  return (value, cb) => { setImmediate(cb, null, value); };
}

/** The fake operation as a native promise of its value. */
export function nativeFake(delayMs) {
  if (delayMs > 0) return (value) => new Promise((resolve) => { setTimeout(resolve, delayMs, value); });
  return (value) => new Promise((resolve) => { setImmediate(resolve, value); });
}

/** The synchronous query creation: its callback runs inside the call. */
export function createQuery(i, cb) {
  cb(null, expected(i, CREATE));
}

/** Results per upload of a shape. */
export function perUpload(pass, parallel) {
  return parallel ? pass.queries + 1 : STEPS;
}

/**
 * Starts the clock (pass.begin), then all pass.n uploads at once; start(i,
 * finish) runs upload i and calls finish(err, up) once.  Each is checked as it finishes; done() after
 * the last.  The totals go on the pass (pass.commits, pass.checked,
 * pass.opsPerUpload) for the line.
 */
export function startAll(pass, parallel, done, start) {
  let finished = 0, checked = 0, commits = 0;
  const ops = perUpload(pass, parallel);
  pass.opsPerUpload = ops;
  pass.begin();
  for (let i = 0; i < pass.n; i++) {
    start(i, (err, up) => {
      if (up) {
        checked += up.checked;
        commits += up.commits;
      }
      pass.check(i, err, up);
      if (++finished === pass.n) {
        pass.commits = commits;
        pass.checked = checked;
        done();
      }
    });
  }
}

/**
 * A promise library as the .then-chained uploads use it: op (the fake as a
 * promise), all (Promise.all of a list) and join(a, b, fn) (fn of both values,
 * as bluebird's Promise.join).  Native promises join with Promise.all.
 */
export function nativePromises(delayMs) {
  return {
    op: nativeFake(delayMs),
    all: (ps) => Promise.all(ps),
    join: (a, b, fn) => Promise.all([a, b]).then(([x, y]) => fn(x, y)),
  };
}

/** A .then-chained upload on promises (native or bluebird, lib): the promise of its record. */
export function promiseUpload(i, parallel, pass, lib) {
  const { op, all, join } = lib;
  const up = new Upload(i, perUpload(pass, parallel));
  if (parallel) {
    const queries = new Array(pass.queries);
    for (let j = 0; j < queries.length; j++) queries[j] = op(expected(i, FILEVERSION, j));
    return all(queries)
      .then((results) => {
        for (let j = 0; j < results.length; j++) up.verify(FILEVERSION, j, results[j]);
        return op(expected(i, COMMIT));
      })
      .then((c) => up.committed(c));
  }
  let file;
  return join(op(expected(i, PUT)), op(expected(i, LOOKUP)), (blobId, found) => {
    up.verify(PUT, 0, blobId);
    up.verify(LOOKUP, 0, found);
    file = found;
    return op(expected(i, VERSION));
  })
    .then((version) => {
      up.verify(VERSION, 0, version);
      if (file) throw new Error('the lookup found a file: the create branch did not run');
      let query;
      createQuery(i, (err, q) => { query = q; });
      up.verify(CREATE, 0, query);
      return op(expected(i, EXEC));
    })
    .then((r) => { up.verify(EXEC, 0, r); return op(expected(i, FILEVERSION)); })
    .then((r) => { up.verify(FILEVERSION, 0, r); return op(expected(i, UPDATE)); })
    .then((r) => { up.verify(UPDATE, 0, r); return op(expected(i, COMMIT)); })
    .then((c) => up.committed(c));
}

/** The promise variants' run: every upload as a promise chain over lib, each checked as it settles. */
export function runPromises(pass, done, parallel, lib) {
  startAll(pass, parallel, done, (i, finish) => {
    promiseUpload(i, parallel, pass, lib).then((up) => finish(null, up), (err) => finish(err));
  });
}

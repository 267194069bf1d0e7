// lib/fakes.mjs -- seed 003's own doxbee programs (the fakes.native and
// fakes.bluebird backends): the shape of bluebird's benchmark/lib (its fake
// database and the lifters of benchmark/lib/fakesP.js) and of the programs
// seed 003 ran under its harness (doxbee-sequential and madeup-parallel:
// promises-bluebird, promises-ecmascript6-native, promises-native-async-await),
// reimplemented here.  What makes them differ from the suite's own doxbee
// programs (workload.mjs):
//
//   - the fake database is objects made per call: a new query object of four
//     fake methods for every query, a new transaction object for every
//     upload, a new blob for every put; the fakes answer with no value (the
//     query creation with its one shared query object), as bluebird's do;
//   - every fake is lifted into promise form once, when the database is made,
//     by the library's own lifter: bluebird's Promise.promisify, or for native
//     promises a hand-written lifter that copies its arguments into a new
//     array, appends a callback and calls the fake with apply inside
//     new Promise (nativeLifter);
//   - an upload starts its commit and reports itself done without waiting for
//     the commit's answer (the async version awaits the put and then the
//     lookup, one after the other, as the seed's did).
//
// Every answer is still checked: each operation answered once, with what the
// fake gives (nothing, or the query object), in the upload's order, the create
// branch ran (the lookup finds nothing), and each commit was answered once.
// The commits still pending at the N-th upload's end are waited for after it,
// outside the clock (contract.mjs: it stops at the N-th verified completion),
// and the pass ends when every one has answered.  --delay-ms T is the
// workload's: a fake answers after T ms on a timer (bluebird's --t 1 is
// T = 1), or on the next loop turn for T = 0.
import {
  CREATE, EXEC, FILEVERSION, KIND_NAMES, LOOKUP, PUT, STEPS, UPDATE, Upload, VERSION, callbackFake,
} from '../workload.mjs';

// What the harness hands every upload: a stream, a path and a tag.
export const STREAM = {};
export const PATH = 'folder/file.txt';

/**
 * Native promises' lifter as seed 003's native programs had it: a function of
 * a callback-last fake, returning a promise of its answer; the receiver is
 * passed on, so a transaction's commit knows its transaction.
 */
export function nativeLifter(fake) {
  return function lifted() {
    const receiver = this;
    const count = arguments.length;
    const args = new Array(count + 1);
    for (let k = 0; k < count; k++) args[k] = arguments[k];
    return new Promise((resolve, reject) => {
      args[count] = (err, value) => {
        if (err) reject(err);
        else resolve(value);
      };
      fake.apply(receiver, args);
    });
  };
}

/**
 * The fake database of a pass, every fake lifted by `lift` (bluebird's
 * Promise.promisify or nativeLifter): what bluebird's fakemaker puts in its
 * globals, as one object.  Each transaction counts the commits answered to it
 * (tx.commits); the database counts them all (db.commits) and calls
 * db.onCommit() after each.
 */
export function fakeDatabase(delayMs, lift) {
  const answer = callbackFake(delayMs);
  // A fake with its callback as its n-th argument: it answers nothing.
  const fake1 = lift((cb) => answer(undefined, cb));
  const fake2 = lift((x, cb) => answer(undefined, cb));
  const queryish = () => ({ execWithin: fake2, exec: fake1, get: fake1, all: fake1 });
  const created = queryish();
  const db = {
    commits: 0,
    onCommit: () => {},
    created,
    uuid: { v1: () => undefined },
    userAccount: {},
    account: {},
    blobManager: { create: () => ({ put: fake2 }) },
    self: {
      byUuidOrPath: queryish,
      // The query creation answers at once, inside the call, with its one query object.
      createQuery: lift((x, y, cb) => cb(null, created)),
    },
    File: { insert: queryish, whereUpdate: queryish },
    FileVersion: { insert: queryish },
    Version: { createHash: () => 1, insert: queryish },
    begin: () => ({ commits: 0, commit, rollback: fake1 }),
  };
  // The commit is the one fake that knows its receiver, the transaction, to
  // count its answer (bluebird's shares the others' fake).
  const commit = lift(function commitFake(cb) {
    const tx = this;
    answer(undefined, (err) => {
      tx.commits++;
      db.commits++;
      db.onCommit();
      cb(err);
    });
  });
  return db;
}

/** An upload's record for seed 003's programs: checked as it goes, its commit counted later. */
export class SeedUpload extends Upload {
  constructor(i, perUpload, tx) {
    super(i, perUpload);
    this.tx = tx;
    this.commitsStarted = 0;
    this.commitLater = true;
  }

  /** Checks the answer of operation `kind` (nothing, or `want`); throws when it is wrong. */
  answered(kind, got, want = undefined) {
    if (got !== want) throw new Error(`${KIND_NAMES[kind]} answered ${got}, expected ${want}`);
    this.checked++;
  }

  /** Starts the transaction's commit and does not wait for it, as the seed's programs do. */
  commitNow() {
    this.commitsStarted++;
    this.tx.commit();
  }
}

/** Results an upload of the shape checks: the commit's included. */
function perUpload(pass, parallel) {
  return parallel ? pass.queries + 1 : STEPS;
}

/**
 * Starts all pass.n uploads at once on a fake database lifted by `lift`:
 * upload(db, up, pass, finish) runs one and calls finish(err) once, after
 * starting its commit.  Each upload is checked as it finishes (the N-th
 * check stops the clock); done() once every commit has answered too, after
 * each was checked to have answered once.  The totals go on the pass.
 */
export function runSeedUploads(pass, done, parallel, lift, upload) {
  // The database is the program's, not an operation's: made before the clock,
  // as bluebird's fakes are made when its program loads.
  const db = fakeDatabase(pass.delayMs, lift);
  const ops = perUpload(pass, parallel);
  let ups = null;
  let finished = 0;
  const settle = () => {
    if (finished !== pass.n || db.commits !== pass.n) return;
    let checked = 0;
    for (const up of ups) {
      if (up.tx.commits !== 1) {
        pass.fail(up.i, `its commit answered ${up.tx.commits} times, expected once`);
        return;
      }
      up.commits = 1;
      checked += up.checked + 1;
    }
    pass.opsPerUpload = ops;
    pass.commits = db.commits;
    pass.checked = checked;
    done();
  };
  db.onCommit = settle;
  pass.begin();
  // The uploads' records, kept to check each one's commit at the end.
  ups = new Array(pass.n);
  for (let i = 0; i < pass.n; i++) {
    const up = new SeedUpload(i, ops, db.begin());
    ups[i] = up;
    upload(db, up, pass, (err) => {
      pass.check(i, err, up);
      finished++;
      settle();
    });
  }
}

/**
 * The sequential upload as a .then chain (seed 003's promises-bluebird and
 * promises-ecmascript6-native): the put and the lookup at once, joined by
 * join(a, b, fn) (bluebird's Promise.join, or Promise.all for native
 * promises), then the version insert, the query creation and its execution
 * (the lookup found nothing), the file-version insert and the file update;
 * then the commit, started and not waited for.
 */
export function thenSequential(join) {
  return (db, up, pass, finish) => {
    const tx = up.tx;
    const failed = (err) => {
      tx.rollback();
      finish(err);
    };
    const blob = db.blobManager.create(db.account);
    let version, file, fileId;
    join(blob.put(STREAM), db.self.byUuidOrPath(PATH).get(), (blobId, found) => {
      up.answered(PUT, blobId);
      up.answered(LOOKUP, found);
      file = found;
      version = { userAccountId: db.userAccount.id, date: new Date(), blobId,
        creatorId: db.userAccount.id, previousId: file ? file.version : null };
      version.id = db.Version.createHash(version);
      return db.Version.insert(version).execWithin(tx);
    }).then((inserted) => {
      up.answered(VERSION, inserted);
      if (file) return file.id;
      const parts = PATH.split('/');
      const newId = db.uuid.v1();
      return db.self.createQuery(PATH, { id: newId, userAccountId: db.userAccount.id,
        name: parts[parts.length - 1], version: version.id })
        .then((query) => {
          up.answered(CREATE, query, db.created);
          return query.execWithin(tx);
        })
        .then((executed) => {
          up.answered(EXEC, executed);
          return newId;
        });
    }).then((id) => {
      fileId = id;
      return db.FileVersion.insert({ fileId, versionId: version.id }).execWithin(tx);
    }).then((inserted) => {
      up.answered(FILEVERSION, inserted);
      return db.File.whereUpdate({ id: fileId }, { version: version.id }).execWithin(tx);
    }).then((updated) => {
      // The seed's last step has its success and failure handlers side by
      // side, so a wrong answer here is caught here.
      try {
        up.answered(UPDATE, updated);
      } catch (err) {
        return failed(err);
      }
      up.commitNow();
      return finish(null);
    }, failed);
  };
}

/**
 * The parallel upload as a .then chain (seed 003's madeup-parallel): P
 * file-version inserts at once, joined by all(list), then the commit, started
 * and not waited for.  extraTurn: one more .then() before the handler, as the
 * native program had.
 */
export function thenParallel(all, extraTurn) {
  return (db, up, pass, finish) => {
    const queries = new Array(pass.queries);
    for (let j = 0; j < queries.length; j++) queries[j] = db.FileVersion.insert({ index: j }).execWithin(up.tx);
    let joined = all(queries);
    if (extraTurn) joined = joined.then();
    const failed = (err) => {
      up.tx.rollback();
      finish(err);
    };
    joined.then((answers) => {
      try {
        checkAll(up, answers, queries.length);
      } catch (err) {
        return failed(err);
      }
      up.commitNow();
      return finish(null);
    }, failed);
  };
}

/** Checks the P answers of a parallel upload's inserts. */
export function checkAll(up, answers, count) {
  if (answers.length !== count) throw new Error(`${answers.length} inserts answered, expected ${count}`);
  for (let j = 0; j < count; j++) up.answered(FILEVERSION, answers[j]);
}

// callback-sequential-parallel -- every upload starts its put and its lookup
// at once and counts both back, then runs its operations one after another,
// each started from the previous one's callback (bluebird's
// callbacks-baseline.js, with the put and the lookup joined as its promise
// version joins them); all N uploads at once.
import { main } from '../lib/contract.mjs';
import {
  doxbee, Upload, callbackFake, createQuery, expected, startAll,
  PUT, LOOKUP, VERSION, CREATE, EXEC, FILEVERSION, UPDATE, COMMIT, STEPS,
} from './workload.mjs';

function upload(i, op, finish) {
  const up = new Upload(i, STEPS);
  // Each step checks its result; a wrong one ends the upload with the error.
  const step = (kind, next) => (err, got) => {
    if (err) return finish(err);
    try {
      up.verify(kind, 0, got);
    } catch (e) {
      return finish(e);
    }
    return next(got);
  };
  // The put and the lookup at once: the second to come back goes on.
  let pending = 2, file, failed = false;
  const joined = (kind) => (err, got) => {
    if (failed) return undefined;
    if (err) {
      failed = true;
      return finish(err);
    }
    try {
      up.verify(kind, 0, got);
    } catch (e) {
      failed = true;
      return finish(e);
    }
    if (kind === LOOKUP) file = got;
    return --pending === 0 ? afterJoin() : undefined;
  };
  function afterJoin() {
    op(expected(i, VERSION), step(VERSION, () => {
      const afterFileExists = () => {
        op(expected(i, FILEVERSION), step(FILEVERSION, () => {
          op(expected(i, UPDATE), step(UPDATE, () => {
            op(expected(i, COMMIT), (err, c) => {
              if (err) return finish(err);
              try {
                return finish(null, up.committed(c));
              } catch (e) {
                return finish(e);
              }
            });
          }));
        }));
      };
      if (file) return finish(new Error('the lookup found a file: the create branch did not run'));
      return createQuery(i, step(CREATE, () => {
        op(expected(i, EXEC), step(EXEC, afterFileExists));
      }));
    }));
  }
  op(expected(i, PUT), joined(PUT));
  op(expected(i, LOOKUP), joined(LOOKUP));
}

export const variant = {
  workload: doxbee, style: 'callback', shape: 'sequential', mode: 'parallel', backend: 'setTimeout',
  run(pass, done) {
    const op = callbackFake(pass.delayMs);
    startAll(pass, false, done, (i, finish) => upload(i, op, finish));
  },
};

main(variant, import.meta.url);

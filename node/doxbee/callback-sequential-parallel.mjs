// callback-sequential-parallel -- every upload's operations one after
// another, each started from the previous one's callback (bluebird's
// callbacks-baseline.js); all N uploads at once.
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
  op(expected(i, PUT), step(PUT, () => {
    op(expected(i, LOOKUP), step(LOOKUP, (file) => {
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
    }));
  }));
}

export const variant = {
  workload: doxbee, style: 'callback', shape: 'sequential', mode: 'parallel', backend: 'setTimeout',
  run(pass, done) {
    const op = callbackFake(pass.delayMs);
    startAll(pass, false, done, (i, finish) => upload(i, op, finish));
  },
};

main(variant, import.meta.url);

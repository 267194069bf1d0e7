// callback-parallel-parallel -- every upload issues its P queries at once,
// counts their callbacks, then commits; all N uploads at once.
import { main } from '../lib/contract.mjs';
import { doxbee, Upload, callbackFake, expected, perUpload, startAll, FILEVERSION, COMMIT } from './workload.mjs';

function upload(i, pass, op, finish) {
  const up = new Upload(i, perUpload(pass, true));
  let pending = pass.queries, failed = false;
  for (let j = 0; j < pass.queries; j++) {
    op(expected(i, FILEVERSION, j), (err, got) => {
      if (failed) return;
      try {
        if (err) throw err;
        up.verify(FILEVERSION, j, got);
      } catch (e) {
        failed = true;
        finish(e);
        return;
      }
      if (--pending === 0) {
        op(expected(i, COMMIT), (err2, c) => {
          if (err2) return finish(err2);
          try {
            return finish(null, up.committed(c));
          } catch (e) {
            return finish(e);
          }
        });
      }
    });
  }
}

export const variant = {
  workload: doxbee, style: 'callback', shape: 'parallel', mode: 'parallel', backend: 'setTimeout',
  run(pass, done) {
    const op = callbackFake(pass.delayMs);
    startAll(pass, true, done, (i, finish) => upload(i, pass, op, finish));
  },
};

main(variant, import.meta.url);

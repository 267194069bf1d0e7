// promise-counter-parallel -- issues N reads, each with its own .then that
// verifies and counts; the N-th reaction ends the run.  Seed 000 called this
// "promises blocking", but every read is in flight at once: it is parallel.
import { promises as fsp } from 'fs';
import { main } from '../lib/contract.mjs';
import { readfile } from './workload.mjs';

export const variant = {
  workload: readfile, style: 'promise', shape: 'counter', mode: 'parallel', backend: 'fs.promises',
  run(pass, done) {
    let completed = 0;
    pass.begin();
    for (let i = 0; i < pass.n; i++) {
      fsp.readFile(pass.file).then(
        (data) => {
          pass.check(i, null, data);
          if (++completed === pass.n) done();
        },
        (err) => pass.check(i, err),
      );
    }
  },
};

main(variant, import.meta.url);

// promise-sequential -- a recursive .then chain: the reaction to each read
// issues the next, one in flight at a time (seed 000's update).  The chain is
// not returned from the reaction, so no promise waits on its successor.
import { promises as fsp } from 'fs';
import { main } from '../lib/contract.mjs';
import { readfile } from './workload.mjs';

export const variant = {
  workload: readfile, style: 'promise', mode: 'sequential', backend: 'fs.promises',
  run(pass, done) {
    const step = (i) => {
      fsp.readFile(pass.file).then(
        (data) => {
          pass.check(i, null, data);
          if (i + 1 === pass.n) done();
          else step(i + 1);
        },
        (err) => pass.check(i, err),
      );
    };
    pass.begin();
    step(0);
  },
};

main(variant, import.meta.url);

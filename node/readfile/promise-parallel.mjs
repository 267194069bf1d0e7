// promise-parallel -- collects N fs.promises.readFile promises and verifies
// the array Promise.all fulfils with, in one .then (seed 000's parallel
// promise test).  A rejection does not say which read failed.
import { promises as fsp } from 'fs';
import { main } from '../lib/contract.mjs';
import { readfile } from './workload.mjs';

export const variant = {
  workload: readfile, style: 'promise', mode: 'parallel', backend: 'fs.promises',
  joinsAll: true, // one Promise.all over all N (contract.mjs: PROMISE_ALL_MAX)
  run(pass) {
    pass.begin();
    const reads = [];
    for (let i = 0; i < pass.n; i++) reads.push(fsp.readFile(pass.file));
    return Promise.all(reads).then(
      (all) => { for (let i = 0; i < all.length; i++) pass.check(i, null, all[i]); },
      (err) => pass.check(null, err),
    );
  },
};

main(variant, import.meta.url);

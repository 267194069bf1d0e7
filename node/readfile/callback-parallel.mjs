// callback-parallel -- issues all N fs.readFile calls at once and counts the
// completions; the last one to verify ends the run (seed 000's parallel
// callback test, with the count the corrected version waits for).
import fs from 'fs';
import { main } from '../lib/contract.mjs';
import { readfile } from './workload.mjs';

export const variant = {
  workload: readfile, style: 'callback', mode: 'parallel', backend: 'fs.readFile',
  run(pass, done) {
    let completed = 0;
    pass.begin();
    for (let i = 0; i < pass.n; i++) {
      fs.readFile(pass.file, (err, data) => {
        pass.check(i, err, data);
        if (++completed === pass.n) done();
      });
    }
  },
};

main(variant, import.meta.url);

// callback-sequential -- each read is issued from the previous read's
// callback, so one is in flight at a time (seed 000's "blocking" callbacks).
import fs from 'fs';
import { main } from '../lib/contract.mjs';
import { readfile } from './workload.mjs';

export const variant = {
  workload: readfile, style: 'callback', mode: 'sequential', backend: 'fs.readFile',
  run(pass, done) {
    const step = (i) => {
      fs.readFile(pass.file, (err, data) => {
        pass.check(i, err, data);
        if (i + 1 === pass.n) done();
        else step(i + 1);
      });
    };
    pass.begin();
    step(0);
  },
};

main(variant, import.meta.url);

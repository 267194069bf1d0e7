// callback-bounded -- keeps at most K reads in flight: K are issued at the
// start and every completion issues the next one until N have been issued.
import fs from 'fs';
import { main } from '../lib/contract.mjs';
import { readfile } from './workload.mjs';

export const variant = {
  workload: readfile, style: 'callback', mode: 'bounded', backend: 'fs.readFile',
  run(pass, done) {
    let issued = 0;
    let completed = 0;
    const issue = () => {
      const i = issued++;
      fs.readFile(pass.file, (err, data) => {
        pass.check(i, err, data);
        if (++completed === pass.n) done();
        else if (issued < pass.n) issue();
      });
    };
    const first = Math.min(pass.concurrency, pass.n);
    pass.begin();
    for (let k = 0; k < first; k++) issue();
  },
};

main(variant, import.meta.url);

// callback-parallel -- starts all N operations at once and counts the
// completions; the last one to verify ends the run.
import { main } from '../lib/contract.mjs';
import { noop, operate } from './workload.mjs';

export const variant = {
  workload: noop, style: 'callback', mode: 'parallel', backend: 'none',
  run(pass, done) {
    let completed = 0;
    pass.begin();
    for (let i = 0; i < pass.n; i++) {
      operate(i, (err, value) => {
        pass.check(i, err, value);
        if (++completed === pass.n) done();
      });
    }
  },
};

main(variant, import.meta.url);

// callback-sequential -- each operation starts from the previous one's
// callback, so one is in flight at a time.
import { main } from '../lib/contract.mjs';
import { noop, operate } from './workload.mjs';

export const variant = {
  workload: noop, style: 'callback', mode: 'sequential', backend: 'none',
  run(pass, done) {
    const step = (i) => {
      operate(i, (err, value) => {
        pass.check(i, err, value);
        if (i + 1 === pass.n) done();
        else step(i + 1);
      });
    };
    pass.begin();
    step(0);
  },
};

main(variant, import.meta.url);

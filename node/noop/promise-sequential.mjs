// promise-sequential -- a recursive .then chain: the reaction to each
// operation starts the next, one in flight at a time.
import { main } from '../lib/contract.mjs';
import { noop, operateAsync } from './workload.mjs';

export const variant = {
  workload: noop, style: 'promise', mode: 'sequential', backend: 'none',
  run(pass, done) {
    const step = (i) => {
      operateAsync(i).then((value) => {
        pass.check(i, null, value);
        if (i + 1 === pass.n) done();
        else step(i + 1);
      });
    };
    pass.begin();
    step(0);
  },
};

main(variant, import.meta.url);

// callback-bounded -- K chains in flight, each the nested callbacks of
// callback-sequential; every finished chain starts the next until N started.
import { main } from '../lib/contract.mjs';
import { httpchain, backendArg, target } from './workload.mjs';
import { chain } from './callback-sequential.mjs';

export const variant = {
  workload: httpchain, style: 'callback', mode: 'bounded', backend: backendArg(),
  run(pass, done) {
    pass.begin(); // before the agent: its connections are the pass's
    const t = target(pass);
    let issued = 0;
    let completed = 0;
    const issue = () => {
      const i = issued++;
      chain(t, (err, last) => {
        pass.check(i, err, last);
        if (++completed === pass.n) {
          t.agent.destroy();
          done();
        } else if (issued < pass.n) issue();
      });
    };
    const first = Math.min(pass.concurrency, pass.n);
    for (let k = 0; k < first; k++) issue();
  },
};

main(variant, import.meta.url);

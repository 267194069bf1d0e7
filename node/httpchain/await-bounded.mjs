// await-bounded -- K async functions, each a for loop of await getData()
// over a shared counter: at most K chains in flight, the shape of C's
// await-bounded.
import { main } from '../lib/contract.mjs';
import { httpchain, backendArg, target } from './workload.mjs';
import { getData } from './await-sequential.mjs';

export const variant = {
  workload: httpchain, style: 'await', mode: 'bounded', backend: backendArg(),
  async run(pass) {
    pass.begin(); // before the agent: its connections are the pass's
    const t = target(pass);
    let next = 0;
    const worker = async () => {
      while (next < pass.n) {
        const i = next++;
        let last;
        try {
          last = await getData(t);
        } catch (err) {
          pass.check(i, err);
          return;
        }
        pass.check(i, null, last);
      }
    };
    const workers = [];
    for (let k = 0; k < Math.min(pass.concurrency, pass.n); k++) workers.push(worker());
    try {
      await Promise.all(workers);
    } finally {
      t.agent.destroy();
    }
  },
};

main(variant, import.meta.url);

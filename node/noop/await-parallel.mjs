// await-parallel -- an async function starts N operations, awaits
// Promise.all and verifies every value.
import { main } from '../lib/contract.mjs';
import { noop, operateAsync } from './workload.mjs';

export const variant = {
  workload: noop, style: 'await', mode: 'parallel', backend: 'none',
  joinsAll: true, // one Promise.all over all N (contract.mjs: PROMISE_ALL_MAX)
  async run(pass) {
    pass.begin();
    const ops = [];
    for (let i = 0; i < pass.n; i++) ops.push(operateAsync(i));
    const all = await Promise.all(ops);
    for (let i = 0; i < all.length; i++) pass.check(i, null, all[i]);
  },
};

main(variant, import.meta.url);

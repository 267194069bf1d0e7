// await-sequential -- a for loop that awaits each operation before starting
// the next.
import { main } from '../lib/contract.mjs';
import { noop, operateAsync } from './workload.mjs';

export const variant = {
  workload: noop, style: 'await', mode: 'sequential', backend: 'none',
  async run(pass) {
    pass.begin();
    for (let i = 0; i < pass.n; i++) pass.check(i, null, await operateAsync(i));
  },
};

main(variant, import.meta.url);

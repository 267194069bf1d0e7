// await-sequential -- a for loop that awaits each read before issuing the
// next (seed 000's "blocking" async/await test).
import fsp from 'node:fs/promises';
import { main } from '../lib/contract.mjs';

export const variant = {
  name: 'await-sequential', style: 'await', mode: 'sequential', backend: 'fs.promises.readFile',
  async run(pass) {
    for (let i = 0; i < pass.n; i++) {
      let data;
      try {
        data = await fsp.readFile(pass.file, 'utf-8');
      } catch (err) {
        pass.check(i, err);
        return;
      }
      pass.check(i, null, data);
    }
  },
};

main(variant, import.meta.url);

// await-promisify-sequential -- await-sequential on the callback backend
// (util.promisify(fs.readFile)): with callback-sequential and
// await-sequential it splits seed 000's sequential gap into the cost of
// promises and await and the cost of fs.promises.readFile itself.
import fs from 'node:fs';
import { promisify } from 'node:util';
import { main } from '../lib/contract.mjs';

const readFile = promisify(fs.readFile);

export const variant = {
  name: 'await-promisify-sequential', style: 'await', mode: 'sequential', backend: 'util.promisify(fs.readFile)',
  async run(pass) {
    for (let i = 0; i < pass.n; i++) {
      let data;
      try {
        data = await readFile(pass.file, 'utf-8');
      } catch (err) {
        pass.check(i, err);
        return;
      }
      pass.check(i, null, data);
    }
  },
};

main(variant, import.meta.url);

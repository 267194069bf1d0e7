// await-promisify-sequential -- await-sequential on the callback backend
// (util.promisify(fs.readFile)): with callback-sequential and
// await-sequential it splits seed 000's sequential gap into the cost of
// promises and await and the cost of fs.promises.readFile itself.
import fs from 'node:fs';
import { promisify } from 'node:util';
import { main } from '../lib/contract.mjs';
import { awaitEach } from './await-sequential.mjs';

export const variant = {
  name: 'await-promisify-sequential', style: 'await', mode: 'sequential', backend: 'util.promisify(fs.readFile)',
  run: awaitEach(promisify(fs.readFile)),
};

main(variant, import.meta.url);

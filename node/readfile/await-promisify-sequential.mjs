// await-promisify-sequential -- readfile/node/await-sequential@promisify:
// await-sequential on the callback API's reader (util.promisify(fs.readFile)):
// with callback-sequential and await-sequential it splits seed 000's
// sequential gap into the cost of promises and await and the cost of
// fs.promises.readFile itself.
import fs from 'fs';
import { promisify } from 'util';
import { main } from '../lib/contract.mjs';
import { readfile } from './workload.mjs';
import { awaitEach } from './await-sequential.mjs';

export const variant = {
  workload: readfile, style: 'await', mode: 'sequential', backend: 'promisify',
  run: awaitEach(promisify(fs.readFile)),
};

main(variant, import.meta.url);

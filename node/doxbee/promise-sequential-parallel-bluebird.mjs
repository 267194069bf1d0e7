// promise-sequential-parallel on bluebird -- every upload a .then chain over
// bluebird's promises (lib/bluebird.mjs); all N uploads at once.
import { main } from '../lib/contract.mjs';
import { runBluebird } from './lib/bluebird.mjs';
import { doxbee } from './workload.mjs';

export const variant = {
  workload: doxbee, style: 'promise', shape: 'sequential', mode: 'parallel', backend: 'bluebird',
  run(pass, done) { runBluebird(pass, done, false); },
};

main(variant, import.meta.url);

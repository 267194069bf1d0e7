// promise-parallel-parallel on fakes.bluebird -- seed 003's madeup-parallel
// promises-bluebird program: P inserts on bluebird's fake database lifted by
// Promise.promisify, joined by bluebird's Promise.all, the commit not waited
// for (lib/fakes.mjs); all N uploads at once.
import { main } from '../lib/contract.mjs';
import { Bluebird } from './lib/bluebird.mjs';
import { runSeedUploads, thenParallel } from './lib/fakes.mjs';
import { doxbee } from './workload.mjs';

export const variant = {
  workload: doxbee, style: 'promise', shape: 'parallel', mode: 'parallel', backend: 'fakes.bluebird',
  run(pass, done) {
    runSeedUploads(pass, done, true, (fake) => Bluebird.promisify(fake),
      thenParallel((list) => Bluebird.all(list), false));
  },
};

main(variant, import.meta.url);

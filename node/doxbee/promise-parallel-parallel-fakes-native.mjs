// promise-parallel-parallel on fakes.native -- seed 003's madeup-parallel
// promises-ecmascript6-native program: P inserts on the fake database lifted
// by the hand-written native lifter, Promise.all and one more .then() before
// the handler, the commit not waited for (lib/fakes.mjs); all N uploads at once.
import { main } from '../lib/contract.mjs';
import { nativeLifter, runSeedUploads, thenParallel } from './lib/fakes.mjs';
import { doxbee } from './workload.mjs';

export const variant = {
  workload: doxbee, style: 'promise', shape: 'parallel', mode: 'parallel', backend: 'fakes.native',
  run(pass, done) {
    runSeedUploads(pass, done, true, nativeLifter, thenParallel((list) => Promise.all(list), true));
  },
};

main(variant, import.meta.url);

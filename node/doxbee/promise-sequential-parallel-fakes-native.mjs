// promise-sequential-parallel on fakes.native -- seed 003's doxbee-sequential
// promises-ecmascript6-native program: the fake database lifted by the
// hand-written native lifter, the put and the lookup joined by Promise.all,
// the commit not waited for (lib/fakes.mjs); all N uploads at once.
import { main } from '../lib/contract.mjs';
import { nativeLifter, runSeedUploads, thenSequential } from './lib/fakes.mjs';
import { doxbee } from './workload.mjs';

export const variant = {
  workload: doxbee, style: 'promise', shape: 'sequential', mode: 'parallel', backend: 'fakes.native',
  run(pass, done) {
    runSeedUploads(pass, done, false, nativeLifter,
      thenSequential((a, b, fn) => Promise.all([a, b]).then((both) => fn(both[0], both[1]))));
  },
};

main(variant, import.meta.url);

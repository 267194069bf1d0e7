// promise-sequential-parallel -- every upload a .then chain over native promises
// (new Promise around setTimeout); all N uploads at once.
import { main } from '../lib/contract.mjs';
import { doxbee, nativePromises, runPromises } from './workload.mjs';

export const variant = {
  workload: doxbee, style: 'promise', shape: 'sequential', mode: 'parallel', backend: 'native',
  run(pass, done) {
    runPromises(pass, done, false, nativePromises(pass.delayMs));
  },
};

main(variant, import.meta.url);

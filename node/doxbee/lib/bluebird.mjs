// lib/bluebird.mjs -- the doxbee variants on bluebird: the same .then chains as
// the native promise variants (workload.mjs), on Promise.promisify of the
// callback fake, bluebird's Promise.all and its Promise.join (as bluebird's own
// doxbee-sequential joins the put and the lookup).  bluebird comes from
// node/node_modules (node/package-lock.json, installed by make deps); without
// it a program says so and exits 3 (the runner's probe skips both variants).
import Module from 'module';
import { fileURLToPath } from 'url';
import { say, EXIT_ENV } from '../../lib/contract.mjs';
import { callbackFake, runPromises } from '../workload.mjs';

// require(), as bluebird's users load it, rather than a top-level await of
// import(), which Node has only from 14.8; createRequire is 12.2's, and Node 10
// has createRequireFromPath (DESIGN section 11).
const createRequire = Module.createRequire || Module.createRequireFromPath;
export let Bluebird;
try {
  Bluebird = createRequire(fileURLToPath(import.meta.url))('bluebird');
} catch {
  say('node/doxbee: bluebird is not installed: run make deps (npm ci in node/)');
  process.exit(EXIT_ENV);
}

/** The run of a bluebird variant of the shape (parallel or not). */
export function runBluebird(pass, done, parallel) {
  runPromises(pass, done, parallel, {
    op: Bluebird.promisify(callbackFake(pass.delayMs)),
    all: (ps) => Bluebird.all(ps),
    join: (a, b, fn) => Bluebird.join(a, b, fn),
  });
}

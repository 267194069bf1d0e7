// lib/objkey.mjs -- runs a cacheloop variant file in seed 002's own shape
// (method objkey, e.g. cacheloop/node/callback-nexttick-objkey-sequential@fs.readFile):
//
//   node node/cacheloop/lib/objkey.mjs node/cacheloop/<file>.mjs [its flags]
//
// Seed 002's programs keep the cache in a plain object and build the key on
// every load (`__dirname + '/benchCallbacks.js'`); the suite's variants look
// one fixed string up in a Map.  The variant's own run() goes through the
// contract's main in this process, as the suite's method does (the seed timed
// its loop from start to end inside its program too), with every pass in the
// seed's shape (workload.mjs: newCache, cacheKey).  Flags, exit codes and the
// line are the contract's, with method "objkey".
import { fileURLToPath } from 'url';
import { EXIT_USAGE, main, programName, say } from '../../lib/contract.mjs';
import { variantFileOrExit, wrapperUsage } from '../../lib/wrapper.mjs';
import { cacheloop } from '../workload.mjs';

const PROG = programName(fileURLToPath(import.meta.url));
const USAGE = wrapperUsage(PROG, 'runs a cacheloop variant with seed 002\'s cache: a plain object, the key built on every load')
  .replace('node/<workload>/', 'node/cacheloop/');

// A promise, not a top-level await (Node has that only from 14.8): DESIGN section 11.
variantFileOrExit(PROG, USAGE, 'objkey', process.argv.slice(2)).then(({ file, variant, rest }) => {
  if (variant.workload !== cacheloop) {
    say(`${PROG}: "${file}" is a variant of ${variant.workload.name}; seed 002's shape is cacheloop's\n${USAGE}`);
    process.exit(EXIT_USAGE);
  }

  main({
    ...variant,
    run(pass, done) {
      pass.objkey = true;
      return variant.run(pass, done);
    },
  }, import.meta.url, { method: 'objkey', args: rest, operand: file });
});

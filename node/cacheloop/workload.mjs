// workload.mjs -- cacheloop (seed 002) for the Node.js variants: N sequential
// loads of one file through a cache; the first load of a pass misses and
// reads the file, every other load hits.  A pass sums the lengths; it is
// valid when hits = N - 1, misses = 1 and the sum = N x the file's length
// (the line carries hits, misses and file_bytes).  Each variant file writes
// load() and the loop in its own style over a Cache of this module.
import fs from 'node:fs';
import { defineWorkload } from '../lib/contract.mjs';
import { fixtureProblem } from '../readfile/workload.mjs';

export const cacheloop = defineWorkload({
  name: 'cacheloop',
  unit: 'load',
  flags: {
    file: {
      value: 'fixtures/text.txt', arg: 'PATH',
      about: 'the file every load returns (cached after the first load)',
      validate: (value) => (value === '' ? '--file must name the file to cache' : null),
    },
  },
  setup(opts) {
    const problem = fixtureProblem(opts.file);
    if (problem) return problem;
    if (fs.statSync(opts.file).size === 0) {
      return `fixture ${opts.file} is empty; --file must name a file with content to cache`;
    }
    return null;
  },
  verifier({ file }) {
    const size = fs.statSync(file).size;
    return (i, data) => (Buffer.isBuffer(data) && data.length === size
      ? data.length
      : `load returned ${data && data.length} bytes, expected the file's ${size}`);
  },
  fields: (pass) => ({ hits: pass.hits, misses: pass.misses, file_bytes: pass.fileBytes }),
});

/** One pass's cache: a Map from name to content, with its counters. */
export class Cache {
  constructor() {
    this.map = new Map();
    this.hits = 0;
    this.misses = 0;
  }
}

/**
 * Ends a pass: checks hits = N - 1 and misses = 1 (a failure exits 1) and
 * leaves the counters on the pass for the line.
 */
export function settle(pass, cache) {
  pass.hits = cache.hits;
  pass.misses = cache.misses;
  pass.fileBytes = fs.statSync(pass.file).size;
  if (cache.hits !== pass.n - 1 || cache.misses !== 1) {
    pass.fail(pass.n - 1, `${cache.hits} hits and ${cache.misses} misses, expected ${pass.n - 1} and 1`);
  }
}

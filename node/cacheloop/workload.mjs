// workload.mjs -- cacheloop (seed 002) for the Node.js variants: N sequential
// loads of one file through a cache; the first load of a pass misses and
// reads the file, every other load hits.  A pass sums the lengths; it is
// valid when hits = N - 1, misses = 1 and the sum = N x the file's length
// (the line carries hits, misses and file_bytes).  Each variant file writes
// load() and the loop in its own style over the pass's cache (newCache) and
// the key each load asks for (cacheKey).  Two shapes of those: the suite's,
// one fixed key in a Map, and seed 002's own (method objkey,
// node/cacheloop/lib/objkey.mjs), a plain object and the key built anew on
// every load, as the seed's `__dirname + '/benchCallbacks.js'`.
import path from 'path';
import fs from 'fs';
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

/** One pass's cache in the suite's shape: a Map from name to content, with its counters. */
export class Cache {
  constructor() {
    this.map = new Map();
    this.hits = 0;
    this.misses = 0;
  }

  get(name) {
    return this.map.get(name);
  }

  set(name, data) {
    this.map.set(name, data);
  }
}

/** The same in seed 002's shape: a plain object keyed by the name. */
export class ObjectCache {
  constructor() {
    this.entries = {};
    this.hits = 0;
    this.misses = 0;
  }

  get(name) {
    return this.entries[name];
  }

  set(name, data) {
    this.entries[name] = data;
  }
}

/** The cache of a pass: seed 002's shape when the pass runs its method (pass.objkey). */
export function newCache(pass) {
  return pass.objkey ? new ObjectCache() : new Cache();
}

/**
 * The key of every load, as a function the loop calls per load: the suite's
 * one fixed string, or seed 002's directory + '/' + name concatenated anew
 * each time (a new string V8 must flatten and hash before it can look it up).
 */
export function cacheKey(pass) {
  const file = pass.file;
  if (!pass.objkey) return () => file;
  const dir = path.dirname(file);
  const rest = `/${path.basename(file)}`;
  return () => dir + rest;
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

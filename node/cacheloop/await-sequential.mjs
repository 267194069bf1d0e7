// await-sequential -- load() is an async function; the loop awaits each
// load.  Every await takes a microtask turn, hit or not.
import fs from 'fs';
import { main } from '../lib/contract.mjs';
import { cacheKey, cacheloop, newCache, settle } from './workload.mjs';

export const variant = {
  workload: cacheloop, style: 'await', mode: 'sequential', backend: 'fs.readFile',
  async run(pass) {
    const cache = newCache(pass);
    const key = cacheKey(pass);
    async function load(name) {
      const res = cache.get(name);
      if (res) {
        cache.hits++;
        return res;
      }
      const data = await new Promise((resolve, reject) => {
        fs.readFile(name, (err, bytes) => (err ? reject(err) : resolve(bytes)));
      });
      cache.misses++;
      cache.set(name, data);
      return data;
    }
    pass.begin();
    for (let i = 0; i < pass.n; i++) {
      let data;
      try {
        data = await load(key());
      } catch (err) {
        pass.check(i, err);
      }
      pass.check(i, null, data);
    }
    settle(pass, cache);
  },
};

main(variant, import.meta.url);

// nodetest-child.mjs -- one variant of any workload as a node:test test file,
// the way seed 000 measured its variants (`node --test <file>`).  The timed
// work is the variant file's own run(), checked by the contract's Pass, so
// the two methods differ only in what surrounds it.  (Its name keeps it out
// of `node --test node/`, which runs only the unit tests.)
//
// node/lib/nodetest.mjs starts this file under `node --test` and passes the
// run through the environment: ASYNCSTYLES_VARIANT (the variant file's
// absolute path), ASYNCSTYLES_OPTIONS (the parsed flags as JSON) and
// ASYNCSTYLES_RESULT (a path).  The test runner owns this process's stdout,
// so the counts go to the ASYNCSTYLES_RESULT file as JSON for nodetest.mjs to
// check and report.
import test from 'node:test';
import assert from 'node:assert';
import fs from 'node:fs';
import { pathToFileURL } from 'node:url';
import { effectiveConcurrency, measure } from './contract.mjs';

const env = process.env;
const resultPath = env.ASYNCSTYLES_RESULT;
const opts = JSON.parse(env.ASYNCSTYLES_OPTIONS);
const { variant } = await import(pathToFileURL(env.ASYNCSTYLES_VARIANT).href);
const concurrency = effectiveConcurrency(variant.mode, opts.concurrency);

function report(fields) {
  if (resultPath) fs.writeFileSync(resultPath, JSON.stringify(fields));
}

// A failed check ends the file at once, as in the suite's own programs; the
// message reaches nodetest.mjs through the result file.
function failed(message) {
  report({ failure: message });
  process.exit(1);
}

test(`${opts.iterations} ${variant.workload.unit}s: ${variant.style} ${variant.mode} on ${variant.backend}`, async () => {
  const { pass, idleRssKb, warmupNs } = await measure(variant, opts, concurrency, failed);
  assert.strictEqual(pass.ok, opts.iterations);
  const cpu = process.cpuUsage(); // the whole life of this process
  report({
    ok: pass.ok,
    bytes: pass.bytes,
    concurrency,
    inner_ns: Number(pass.t1 - pass.t0),
    user_us: cpu.user,
    sys_us: cpu.system,
    peak_rss_kb: process.resourceUsage().maxRSS,
    idle_rss_kb: idleRssKb,
    preclock: pass.preclock,
    warmup_ns: warmupNs,
  });
});

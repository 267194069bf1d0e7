// Unit tests of node/lib (the contract, the limiter, the node --test wrapper)
// and of what the workload modules plug into it: node --test node/
import test from 'node:test';
import assert from 'assert';
import { execFileSync, spawnSync } from 'child_process';
import fs from 'fs';
import fsp from 'fs/promises';
import net from 'net';
import os from 'os';
import path from 'path';
import { pathToFileURL } from 'url';
import { limiter } from './limit.mjs';
import {
  DEFAULT_BOUND, Pass, QUOTE_MAX, ROOT, UsageError, defaults, defineWorkload, effectiveConcurrency, measure, parseArgs, quote,
  resultLine, runPass, runtimeName, usageText, variantFields, variantId, variantLabel, variantName,
} from './contract.mjs';
import { fixtureProblem, readfile } from '../readfile/workload.mjs';
import { noop } from '../noop/workload.mjs';
import { doxbee } from '../doxbee/workload.mjs';

const tick = () => new Promise((resolve) => setImmediate(resolve));

/** Every variant file under node/<workload>/, as paths relative to the root. */
function variantFiles() {
  const node = path.join(ROOT, 'node');
  return fs.readdirSync(node).filter((w) => fs.existsSync(path.join(node, w, 'workload.mjs')))
    .flatMap((w) => fs.readdirSync(path.join(node, w))
      .filter((f) => f.endsWith('.mjs') && f !== 'workload.mjs')
      .map((f) => `node/${w}/${f}`))
    .sort();
}

/** Runs a Node program from the project root; returns { status, stdout, stderr }. */
function runNode(args) {
  return spawnSync(process.execPath, args, { cwd: ROOT, encoding: 'utf-8' });
}

test('the limiter never runs more than k tasks at once and runs them all in order', async () => {
  const limit = limiter(3);
  let running = 0;
  let most = 0;
  const started = [];
  const task = (i) => async () => {
    started.push(i);
    running++;
    most = Math.max(most, running);
    await tick();
    running--;
    return i * 2;
  };
  const results = await Promise.all(Array.from({ length: 10 }, (_, i) => limit(task(i))));
  assert.deepStrictEqual(results, Array.from({ length: 10 }, (_, i) => i * 2));
  assert.deepStrictEqual(started, Array.from({ length: 10 }, (_, i) => i));
  assert.strictEqual(most, 3);
  assert.strictEqual(limit.active(), 0);
  assert.strictEqual(limit.pending(), 0);
});

test('a rejected or throwing task frees its slot and rejects only its own promise', async () => {
  const limit = limiter(1);
  const failing = limit(async () => { throw new Error('boom'); });
  const throwing = limit(() => { throw new Error('sync boom'); });
  const fine = limit(async () => 'fine');
  await assert.rejects(failing, /boom/);
  await assert.rejects(throwing, /sync boom/);
  assert.strictEqual(await fine, 'fine');
});

test('the limiter refuses a bound that is not a positive integer', () => {
  for (const k of [0, -1, 1.5, NaN]) assert.throws(() => limiter(k), RangeError);
});

test('the id rule gives the ids of DESIGN section 4 and the catalog', () => {
  const examples = {
    'readfile/c/promise-counter-parallel@node4': { lang: 'c', style: 'promise', shape: 'counter', mode: 'parallel', backend: 'node4' },
    'readfile/c/sync-sequential@node4': { lang: 'c', style: 'sync', mode: 'sequential', backend: 'node4' },
    'readfile/go/goroutine-parallel@os.ReadFile': { lang: 'go', style: 'goroutine', mode: 'parallel', backend: 'os.ReadFile' },
    'readfile/node/await-nodetest-parallel@fs.promises':
      { lang: 'node', style: 'await', mode: 'parallel', method: 'nodetest', backend: 'fs.promises' },
    'readfile/node/await-parallel@promisify': { lang: 'node', style: 'await', shape: '', method: 'inprocess', mode: 'parallel', backend: 'promisify' },
    'readfile/c/callback-nowait-parallel@node4': { lang: 'c', style: 'callback', shape: 'nowait', mode: 'parallel', backend: 'node4' },
    'readfile/c/await-tasks-parallel@node4': { lang: 'c', style: 'await', shape: 'tasks', mode: 'parallel', backend: 'node4' },
  };
  for (const [id, fields] of Object.entries(examples)) {
    assert.strictEqual(variantId({ workload: 'readfile', ...fields }), id);
  }
  const counterNodetest = { workload: 'readfile', lang: 'node', style: 'promise', shape: 'counter', method: 'nodetest', mode: 'parallel', backend: 'fs.promises' };
  assert.strictEqual(variantName(counterNodetest), 'promise-counter-nodetest-parallel');
  assert.strictEqual(variantLabel(counterNodetest), 'node/promise-counter-nodetest-parallel@fs.promises');
  // Every method but inprocess is named, after the shape (seed 003's harness, seed 002's cache).
  assert.strictEqual(variantName({ style: 'await', shape: 'parallel', method: 'perfjs', mode: 'parallel' }), 'await-parallel-perfjs-parallel');
  assert.strictEqual(variantName({ style: 'sync', method: 'objkey', mode: 'sequential' }), 'sync-objkey-sequential');
});

test('every Node variant file is named after its variant, and the old promisify names map to the backend', async () => {
  const ids = {};
  for (const file of variantFiles()) {
    const { variant } = await import(pathToFileURL(path.join(ROOT, file)).href);
    const fields = variantFields(variant);
    ids[file] = fields.variant;
    assert.strictEqual(fields.workload, path.basename(path.dirname(file)), file);
    // await-promisify-parallel.mjs keeps its name from before the backend was a field.
    const legacy = variantName({ ...fields, shape: fields.backend });
    // Where two backends share a name (doxbee's promise on native promises and on
    // bluebird), the second file adds its backend, a dot a dash:
    // promise-sequential-parallel-bluebird.mjs, promise-sequential-parallel-fakes-native.mjs.
    const withBackend = `${variantName(fields)}-${fields.backend.replace(/\./g, '-')}`;
    assert.ok([variantName(fields), legacy, withBackend].includes(path.basename(file, '.mjs')), `${file}: ${fields.variant}`);
  }
  assert.strictEqual(ids['node/readfile/await-promisify-parallel.mjs'], 'readfile/node/await-parallel@promisify');
  assert.strictEqual(ids['node/readfile/await-promisify-sequential.mjs'], 'readfile/node/await-sequential@promisify');
  assert.strictEqual(ids['node/readfile/promise-counter-parallel.mjs'], 'readfile/node/promise-counter-parallel@fs.promises');
  assert.strictEqual(ids['node/readfile/callback-parallel.mjs'], 'readfile/node/callback-parallel@fs.readFile');
  assert.strictEqual(ids['node/noop/await-parallel.mjs'], 'noop/node/await-parallel@none');
  assert.strictEqual(ids['node/doxbee/promise-parallel-parallel-bluebird.mjs'], 'doxbee/node/promise-parallel-parallel@bluebird');
  assert.strictEqual(ids['node/doxbee/promise-parallel-parallel.mjs'], 'doxbee/node/promise-parallel-parallel@native');
  assert.strictEqual(ids['node/doxbee/await-sequential-parallel-fakes-native.mjs'], 'doxbee/node/await-sequential-parallel@fakes.native');
});

test('UV_USE_IO_URING=1 makes a variant\'s backend <backend>.uring and names itself in the runtime', () => {
  const decl = { workload: readfile, style: 'callback', mode: 'parallel', backend: 'fs.readFile', run() {} };
  const saved = process.env.UV_USE_IO_URING;
  try {
    for (const [value, backend] of [['1', 'fs.readFile.uring'], ['0', 'fs.readFile'], ['', 'fs.readFile']]) {
      process.env.UV_USE_IO_URING = value;
      assert.strictEqual(variantFields(decl).backend, backend, `UV_USE_IO_URING=${value}`);
      assert.strictEqual(runtimeName().includes('UV_USE_IO_URING'), backend.endsWith('.uring'));
    }
    delete process.env.UV_USE_IO_URING;
    assert.strictEqual(variantFields(decl).variant, 'readfile/node/callback-parallel@fs.readFile');
  } finally {
    if (saved === undefined) delete process.env.UV_USE_IO_URING;
    else process.env.UV_USE_IO_URING = saved;
  }
});

test('a declaration that is not a variant is refused with a sentence', () => {
  const ok = { workload: noop, style: 'callback', mode: 'parallel', backend: 'none', run() {} };
  assert.strictEqual(variantFields(ok, 'nodetest').variant, 'noop/node/callback-nodetest-parallel@none');
  for (const bad of [{ workload: undefined }, { style: 'Call back' }, { shape: 'two words' }, { mode: 'sideways' },
    { backend: 'fs.readFile()' }, { backend: '' }, { run: undefined }]) {
    assert.throws(() => variantFields({ ...ok, ...bad }), TypeError, JSON.stringify(bad));
  }
});

test('the line holds the contract\'s fields in their order (DESIGN section 3)', () => {
  const fields = variantFields({ workload: readfile, style: 'promise', shape: 'counter', mode: 'parallel', backend: 'fs.promises', run() {} });
  const line = resultLine(fields, {
    iterations: 10, concurrency: 0, ok: 10, bytes: 120, elapsed_ns: 5, user_us: 1, sys_us: 2, peak_rss_kb: 3, idle_rss_kb: 2,
  });
  assert.ok(!line.includes('\n'));
  const parsed = JSON.parse(line);
  assert.deepStrictEqual(Object.keys(parsed), ['workload', 'lang', 'style', 'shape', 'mode', 'method', 'backend', 'variant',
    'iterations', 'concurrency', 'ok', 'bytes', 'elapsed_ns', 'user_us', 'sys_us', 'peak_rss_kb', 'idle_rss_kb', 'runtime',
    'passes_elapsed_ns']);
  // one pass unless told: the list is elapsed_ns alone
  assert.deepStrictEqual(parsed.passes_elapsed_ns, [5]);
  assert.strictEqual(parsed.variant, 'readfile/node/promise-counter-parallel@fs.promises');
  assert.strictEqual(parsed.method, 'inprocess');
  assert.match(parsed.runtime, /^node v\d+\.\d+\.\d+ \(V8 [0-9][0-9a-z.-]*, libuv \d+\.\d+\.\d+\)$/);
});

test('a workload\'s own fields follow runtime in the line, in their order', () => {
  const fields = variantFields({ workload: noop, style: 'sync', mode: 'sequential', backend: 'none', run() {} });
  const line = JSON.parse(resultLine(fields, {
    iterations: 3, concurrency: 1, ok: 3, bytes: 0, elapsed_ns: 5, user_us: 1, sys_us: 2, peak_rss_kb: 3, idle_rss_kb: 2,
    workloadFields: { hits: 2, misses: 1 },
  }));
  assert.deepStrictEqual(Object.keys(line).slice(-4), ['runtime', 'hits', 'misses', 'passes_elapsed_ns']);
  assert.strictEqual(line.hits, 2);
});

test('every variant of a workload with fields of its own writes its catalog\'s fields after runtime, in that order', () => {
  const quick = { doxbee: ['--delay-ms', '0', '--queries', '3'], tasks: ['--sleep-ms', '0'] };
  const bluebird = fs.existsSync(path.join(ROOT, 'node', 'node_modules', 'bluebird'));
  let workloads = 0;
  for (const workload of fs.readdirSync(path.join(ROOT, 'catalog'))) {
    const declared = JSON.parse(fs.readFileSync(path.join(ROOT, 'catalog', workload), 'utf-8')).fields;
    const name = path.basename(workload, '.json');
    if (!declared || !fs.existsSync(path.join(ROOT, 'node', name, 'workload.mjs'))) continue;
    workloads++;
    for (const file of variantFiles().filter((f) => f.startsWith(`node/${name}/`))) {
      if (file.endsWith('-bluebird.mjs') && !bluebird) continue;
      const run = runNode([file, '--iterations', '3', '--warmup', '1', ...(quick[name] || [])]);
      assert.strictEqual(run.status, 0, `${file}: ${run.stderr}`);
      const line = JSON.parse(run.stdout);
      const keys = Object.keys(line);
      // the workload's fields, then what the pass did before its clock (Pass.begin),
      // the warm-up's time and every timed pass's
      assert.deepStrictEqual(keys.slice(keys.indexOf('runtime') + 1),
        [...Object.keys(declared), 'preclock_heap_bytes', 'preclock_faults', 'warmup_ns', 'passes_elapsed_ns'], file);
      for (const field of Object.keys(declared)) assert.ok(Number.isInteger(line[field]), `${file}: ${field}`);
    }
  }
  assert.ok(workloads >= 4, `${workloads} workloads with fields of their own`);
});

test('every Node doxbee upload of the sequential shape joins its put and its lookup, then waits one step at a time', async () => {
  // What every style of every language does (bluebird's promise version joins
  // the two): with one upload, two fake operations are in flight at once only
  // there, and the upload waits on 7 timers (8 results; the query creation is
  // synchronous).  Seed 003's own async program (the fakes backends) awaits
  // the put and then the lookup, so it has one in flight at a time; its
  // commit, not waited for, is still one of the 7 before the pass ends.
  const bluebird = fs.existsSync(path.join(ROOT, 'node', 'node_modules', 'bluebird'));
  const files = variantFiles().filter((f) => f.startsWith('node/doxbee/') && f.includes('-sequential-'));
  assert.strictEqual(files.length, 7);
  for (const file of files) {
    if (file.endsWith('-bluebird.mjs') && !bluebird) continue;
    const { variant } = await import(pathToFileURL(path.join(ROOT, file)).href);
    const realTimeout = globalThis.setTimeout;
    let inFlight = 0, most = 0, timers = 0;
    globalThis.setTimeout = (cb, ms, ...args) => {
      inFlight++;
      timers++;
      most = Math.max(most, inFlight);
      return realTimeout(() => { inFlight--; cb(...args); }, ms);
    };
    try {
      const opts = { ...defaults(variant.workload), iterations: 1 };
      const pass = new Pass(variant.workload, opts, 1, 0, (message) => { throw new Error(message); });
      await runPass(variant, pass);
      assert.strictEqual(pass.ok, 1, file);
    } finally {
      globalThis.setTimeout = realTimeout;
    }
    const oneAtATime = file.endsWith('/await-sequential-parallel-fakes-native.mjs');
    assert.deepStrictEqual({ most, timers }, { most: oneAtATime ? 1 : 2, timers: 7 }, file);
  }
});

test('seed 002\'s shape builds the key of every load and keeps the cache in a plain object; the suite\'s looks one string up in a Map', async () => {
  const { Cache, ObjectCache, cacheloop } = await import('../cacheloop/workload.mjs');
  const file = path.join(ROOT, 'fixtures', 'text.txt');
  for (const objkey of [false, true]) {
    for (const f of variantFiles().filter((v) => v.startsWith('node/cacheloop/'))) {
      const { variant } = await import(pathToFileURL(path.join(ROOT, f)).href);
      const Kind = objkey ? ObjectCache : Cache;
      const names = [];
      const realGet = Kind.prototype.get;
      Kind.prototype.get = function get(name) {
        names.push(name);
        return realGet.call(this, name);
      };
      try {
        const pass = new Pass(cacheloop, { ...defaults(cacheloop), file }, 5, 1, (m) => { throw new Error(m); });
        pass.objkey = objkey;
        await runPass(variant, pass);
        assert.deepStrictEqual([pass.ok, pass.hits, pass.misses], [5, 4, 1], f);
      } finally {
        Kind.prototype.get = realGet;
      }
      // Every load looked its key up in the pass's kind of cache, and it names the file.
      assert.deepStrictEqual(names, new Array(5).fill(file), `${f} objkey=${objkey}`);
    }
  }
  const seeds = new ObjectCache();
  assert.strictEqual(Object.getPrototypeOf(seeds.entries), Object.prototype);
  assert.ok(new Cache().map instanceof Map);
});

test('parseArgs takes the generic and the workload\'s flags in both forms', () => {
  const opts = parseArgs(readfile, ['--iterations', '5', '--expect=hi', '--concurrency', '3', '--warmup=2', '--file', 'f']);
  assert.deepStrictEqual(opts, { iterations: 5, expect: 'hi', concurrency: 3, warmup: 2, passes: 1, lockstep: 0, file: 'f' });
  assert.deepStrictEqual(parseArgs(readfile, ['--help']), { help: true });
  assert.deepStrictEqual(parseArgs(noop, ['-iterations', '7']), { iterations: 7, concurrency: 0, warmup: 0, passes: 1, lockstep: 0 });
  assert.strictEqual(parseArgs(noop, ['--passes=10000']).passes, 10000);
});

test('parseArgs names each bad flag', () => {
  const cases = [
    [readfile, ['--iterations', '0'], /^--iterations must be a positive integer, got 0$/],
    [readfile, ['--iterations', '-5'], /^--iterations must be a positive integer, got "-5"$/],
    [readfile, ['--iterations', 'abc'], /^--iterations must be a positive integer, got "abc"$/],
    [readfile, ['--iterations', '1.5'], /positive integer, got "1.5"/],
    [readfile, ['--iterations', '99999999999999999999'], /positive integer/],
    [readfile, ['--warmup', '-1'], /^--warmup must be a non-negative integer, got "-1"$/],
    [readfile, ['--concurrency', 'x'], /^--concurrency must be a non-negative integer/],
    [noop, ['--passes', '0'], /^--passes must be an integer from 1 to 10000, got "0"$/],
    [noop, ['--passes', '-1'], /^--passes must be an integer from 1 to 10000, got "-1"$/],
    [noop, ['--passes', 'two'], /^--passes must be an integer from 1 to 10000, got "two"$/],
    [noop, ['--passes', '10001'], /^--passes must be an integer from 1 to 10000, got "10001"$/],
    [readfile, ['--nope', '1'], /^unknown flag "--nope"$/],
    [readfile, ['stray'], /^unexpected argument "stray"$/],
    [readfile, ['--iterations'], /^--iterations needs a value$/],
    [readfile, ['--file', ''], /^--file must name the fixture$/],
    [noop, ['--file', 'f'], /^unknown flag "--file"$/],
    [noop, ['--expect=x'], /^unknown flag "--expect=x"$/],
  ];
  for (const [workload, args, message] of cases) {
    assert.throws(() => parseArgs(workload, args), (err) => err instanceof UsageError && message.test(err.message),
      `${workload.name} ${args.join(' ')}`);
  }
});

test('an integer flag with a range says that range for every value outside it, digits or not', () => {
  for (const value of ['0', '-1', 'x', '1000001', '2.5']) {
    assert.throws(() => parseArgs(doxbee, ['--queries', value]), (err) => err instanceof UsageError
      && err.message === `--queries must be an integer from 1 to 1000000, got "${value}"`, value);
  }
  assert.strictEqual(parseArgs(doxbee, ['--queries', '1000000']).queries, 1000000);
  assert.strictEqual(parseArgs(doxbee, ['--delay-ms=0']).delayMs, 0);
});

test('readfile\'s defaults are the ones documented, and the catalog\'s where it has a file for the workload', () => {
  assert.deepStrictEqual(defaults(readfile),
    { iterations: 10000, concurrency: 0, warmup: 0, passes: 1, lockstep: 0, file: 'fixtures/text.txt', expect: 'Hello, world' });
  assert.deepStrictEqual(defaults(noop), { iterations: 10000, concurrency: 0, warmup: 0, passes: 1, lockstep: 0 });
  for (const workload of [readfile, noop]) {
    const catalogFile = path.join(ROOT, 'catalog', `${workload.name}.json`);
    if (!fs.existsSync(catalogFile)) continue;
    const declared = JSON.parse(fs.readFileSync(catalogFile, 'utf-8')).flags || {};
    const ours = Object.fromEntries(Object.entries(workload.flags).map(([flag, spec]) => [`--${flag}`, spec.value]));
    assert.deepStrictEqual(ours, Object.fromEntries(Object.entries(declared).map(([flag, spec]) => [flag, spec.value])));
  }
});

test('the usage lists the generic flags, then the workload\'s with their defaults', () => {
  const usage = usageText('node/readfile/x.mjs', readfile);
  assert.match(usage, /^usage: node\/readfile\/x\.mjs \[--iterations N\] \[--concurrency K\] \[--warmup N\] \[--passes P\] \[--lockstep 0\|1\] \[--file PATH\] \[--expect TEXT\]\n/);
  assert.match(usage, /--passes P +timed passes of N after the warm-up, 1 to 10000 \(default 1\)/);
  assert.match(usage, /--concurrency K +reads in flight for bounded variants; 0 means 64 there \(default 0\)/);
  assert.match(usage, /--expect TEXT +the exact content every read must return \(default "Hello, world"\)/);
  assert.match(usageText('node/noop/x.mjs', noop), /--iterations N +operations in the timed section/);
});

test('a workload flag may not shadow a generic flag or a field of the pass', () => {
  const base = { name: 'probe', unit: 'probe', verifier: () => () => 0 };
  for (const flag of ['iterations', 'help', 'check', 'ok', 'Bad', 'two--dashes', '-x']) {
    assert.throws(() => defineWorkload({ ...base, flags: { [flag]: { value: '', arg: 'X', about: '' } } }), TypeError, flag);
  }
  assert.throws(() => defineWorkload({ ...base, flags: { port: { value: 'x', integer: true, arg: 'P', about: '' } } }), TypeError);
  assert.throws(() => defineWorkload({ ...base, verifier: undefined }), TypeError);
  assert.throws(() => defineWorkload({ ...base, fields: { hits: 0 } }), TypeError);
  const probe = defineWorkload({ ...base, flags: { 'delay-ms': { value: 5, integer: true, arg: 'T', about: 'a delay' } } });
  assert.strictEqual(parseArgs(probe, ['--delay-ms', '7']).delayMs, 7);
  assert.strictEqual(new Pass(probe, defaults(probe), 1, 0, () => {}).delayMs, 5);
});

test('effective concurrency is 1 sequential, 0 parallel and the bound (default 64, the catalog\'s) bounded', () => {
  assert.strictEqual(DEFAULT_BOUND, 64);
  const suite = path.join(ROOT, 'catalog', 'suite.json');
  if (fs.existsSync(suite)) assert.strictEqual(JSON.parse(fs.readFileSync(suite, 'utf-8')).bound, DEFAULT_BOUND);
  assert.strictEqual(effectiveConcurrency('sequential', 9), 1);
  assert.strictEqual(effectiveConcurrency('parallel', 9), 0);
  assert.strictEqual(effectiveConcurrency('bounded', 9), 9);
  assert.strictEqual(effectiveConcurrency('bounded', 0), 64);
  assert.throws(() => effectiveConcurrency('sideways', 0), TypeError);
});

test('a pass whose variant never begins its clock fails, and begin() twice throws', async () => {
  const failures = [];
  const pass = new Pass(noop, {}, 3, 0, (m) => failures.push(m));
  const clockless = { workload: noop, style: 'sync', mode: 'sequential', backend: 'none',
    run(p, done) { for (let i = 0; i < p.n; i++) p.check(i, null, i); done(); } };
  await runPass(clockless, pass);
  assert.deepStrictEqual(failures, ['iteration 3: the variant never started its clock (pass.begin())']);
  const twice = new Pass(noop, {}, 1, 0, () => {});
  twice.begin();
  assert.throws(() => twice.begin(), /twice/);
});

test('begin() records what the pass made on the heap before the clock, and nothing when it begins first', async () => {
  let keep = null;
  const variant = (early) => ({ workload: noop, style: 'sync', mode: 'sequential', backend: 'none',
    run(p, done) {
      const make = () => { keep = Array.from({ length: p.n }, (_, i) => ({ i, pad: [i, i, i, i] })); };
      if (early) make();
      p.begin();
      if (!early) make();
      for (let i = 0; i < p.n; i++) p.check(i, null, i);
      done();
    } });
  const pass = (early) => new Pass(noop, {}, 200000, 0, (m) => assert.fail(m));
  const early = pass(true);
  await runPass(variant(true), early);
  // 200,000 objects of at least 48 bytes made before the clock and kept (a collection
  // meanwhile frees only garbage)
  assert.ok(early.preclock.heapBytes >= 200000 * 48, `${early.preclock.heapBytes}`);
  const first = pass(false);
  await runPass(variant(false), first);
  assert.ok(first.preclock.heapBytes < 64 * 1024, `${first.preclock.heapBytes}`);
  assert.ok(keep.length === 200000);
});

test('a readfile pass counts verified reads and their UTF-8 bytes and reports the first wrong one', () => {
  const failures = [];
  const pass = new Pass(readfile, { file: 'f', expect: 'héllo' }, 2, 0, (m) => failures.push(m));
  assert.strictEqual(pass.file, 'f');
  pass.begin();
  assert.strictEqual(pass.check(0, null, Buffer.from('héllo')), true);
  assert.strictEqual(pass.t1, 0n);
  assert.strictEqual(pass.check(1, null, Buffer.from('hello')), false);
  assert.strictEqual(pass.check(1, Object.assign(new Error('gone'), { code: 'ENOENT' })), false);
  assert.strictEqual(pass.check(null, new Error('all gone')), false);
  assert.strictEqual(pass.check(1, null, Buffer.from('héllo')), true);
  assert.ok(pass.t1 >= pass.t0 && pass.t1 > 0n);
  assert.strictEqual(pass.ok, 2);
  assert.strictEqual(pass.bytes, 12); // 'héllo' is 6 bytes in UTF-8
  assert.deepStrictEqual(failures, [
    "iteration 1: read 5 bytes 'hello', expected 6 bytes 'h\\xc3\\xa9llo'",
    'iteration 1: read failed: ENOENT gone',
    'a read: read failed: all gone',
  ]);
});

test('a noop completion verifies when its value is its own iteration, and counts no bytes', () => {
  const failures = [];
  const pass = new Pass(noop, defaults(noop), 2, 0, (m) => failures.push(m));
  assert.strictEqual(pass.check(0, null, 0), true);
  assert.strictEqual(pass.check(1, null, 0), false);
  assert.strictEqual(pass.check(1, null, '1'), false);
  assert.strictEqual(pass.check(1, null, 1), true);
  assert.strictEqual(pass.bytes, 0);
  assert.deepStrictEqual(failures, ['iteration 1: completed with 0, expected 1', 'iteration 1: completed with "1", expected 1']);
});

test('the fixture check refuses a missing file, a directory, a FIFO and a socket', async (t) => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'asyncstyles-lib-'));
  t.after(() => fs.rmSync(dir, { recursive: true, force: true }));
  const text = path.join(dir, 'text.txt');
  fs.writeFileSync(text, 'Hello, world');
  assert.strictEqual(fixtureProblem(text), null);
  assert.match(fixtureProblem(path.join(dir, 'nope.txt')), /is missing: run from the project root or pass --file PATH$/);
  assert.match(fixtureProblem(path.join(text, 'below')), /is missing/);
  assert.match(fixtureProblem(dir), /is a directory: pass --file with a regular file$/);
  const fifo = path.join(dir, 'fifo');
  execFileSync('mkfifo', [fifo]);
  assert.match(fixtureProblem(fifo), /is a FIFO; --file must name a regular file$/);
  const sock = path.join(dir, 'sock');
  const server = net.createServer().listen(sock);
  await new Promise((resolve) => server.on('listening', resolve));
  try {
    assert.match(fixtureProblem(sock), /is a socket; --file must name a regular file$/);
  } finally {
    server.close();
  }
});

test('measure runs P timed passes after the warm-up, verifies each, times each and keeps the first\'s figures', async () => {
  const seen = [];
  const variant = { workload: noop, style: 'sync', mode: 'sequential', backend: 'none',
    async run(p, done) {
      seen.push(p.n);
      const k = seen.length - 2; // the timed pass k from 0, after a warm-up
      p.begin();
      // pass k spins 3k ms on the clock (a timer may fire early by its rounding)
      if (k > 0) await Promise.resolve().then(() => {
        const until = process.hrtime.bigint() + BigInt(3e6 * k);
        while (process.hrtime.bigint() < until);
      });
      for (let i = 0; i < p.n; i++) p.check(i, null, k === 3 && i === 1 ? 99 : i);
      done();
    } };
  const failures = [];
  const m = await measure(variant, { ...defaults(noop), iterations: 4, warmup: 2, passes: 3 }, 1, (x) => failures.push(x));
  assert.deepStrictEqual(failures, []);
  assert.deepStrictEqual(seen, [2, 4, 4, 4]);
  assert.strictEqual(m.passesNs.length, 3);
  assert.strictEqual(m.passesNs[0], Number(m.pass.t1 - m.pass.t0));
  for (let k = 1; k < 3; k++) assert.ok(m.passesNs[k] >= 3e6 * k, `${m.passesNs}`);
  assert.deepStrictEqual([m.pass.n, m.pass.ok], [4, 4]);
  // a wrong result in a later pass is reported with the pass
  seen.length = 0;
  await measure(variant, { ...defaults(noop), iterations: 4, warmup: 2, passes: 4 }, 1, (x) => failures.push(x));
  assert.strictEqual(failures[0], 'timed pass 4 of 4: iteration 1: completed with 99, expected 1');
});

test('a pass paused between sections times their sum: the time between pause and resume is left out', async () => {
  const spin = (ms) => {
    const until = process.hrtime.bigint() + BigInt(ms * 1e6);
    while (process.hrtime.bigint() < until);
  };
  const variant = { workload: noop, style: 'sync', mode: 'sequential', backend: 'none',
    run(p, done) {
      assert.throws(() => p.pause(), /outside the clock/);
      p.begin();
      for (let i = 0; i < p.n; i++) {
        if (i > 0) p.resume();
        spin(2);
        p.check(i, null, i);
        if (i + 1 < p.n) {
          p.pause();
          spin(30);
        }
      }
      assert.throws(() => p.resume(), /without pass.pause/);
      done();
    } };
  const failures = [];
  const m = await measure(variant, { ...defaults(noop), iterations: 3, passes: 1 }, 1, (x) => failures.push(x));
  assert.deepStrictEqual(failures, []);
  // three sections of 2 ms; the two pauses of 30 ms are not in it
  assert.ok(m.passesNs[0] >= 6e6 && m.passesNs[0] < 60e6, `${m.passesNs}`);
  assert.ok(Number(m.pass.t1 - m.pass.t0) >= 66e6);
  assert.strictEqual(m.passesNs[0], m.pass.elapsedNs());
});

test('a program runs --passes P and lists P times; a whole-process method refuses more than one', () => {
  const run = runNode(['node/noop/promise-sequential.mjs', '--iterations', '20', '--passes', '3']);
  assert.strictEqual(run.status, 0, run.stderr);
  const line = JSON.parse(run.stdout);
  assert.strictEqual(line.passes_elapsed_ns.length, 3);
  assert.strictEqual(line.passes_elapsed_ns[0], line.elapsed_ns);
  assert.ok(line.passes_elapsed_ns.every((t) => Number.isSafeInteger(t) && t > 0));
  assert.deepStrictEqual([line.iterations, line.ok], [20, 20]);
  for (const method of ['nodetest', 'perfjs']) {
    const refused = runNode([`node/lib/${method}.mjs`, 'node/noop/promise-sequential.mjs', '--iterations', '5', '--passes', '2']);
    assert.strictEqual(refused.status, 2, method);
    assert.strictEqual(refused.stdout, '', method);
    assert.match(refused.stderr, new RegExp(`^node/lib/${method}\\.mjs: --passes must be 1 for method ${method}: it times one pass a process, got 2\nusage: `), method);
    const one = runNode([`node/lib/${method}.mjs`, 'node/noop/promise-sequential.mjs', '--iterations', '5', '--passes', '1']);
    assert.strictEqual(one.status, 0, `${method}: ${one.stderr}`);
    const parsed = JSON.parse(one.stdout);
    assert.deepStrictEqual(parsed.passes_elapsed_ns, [parsed.elapsed_ns], method);
  }
});

test('every noop program prints one contract line with ok == N and bytes 0', () => {
  for (const file of variantFiles().filter((f) => f.startsWith('node/noop/'))) {
    const run = runNode([file, '--iterations', '50', '--warmup', '3']);
    assert.strictEqual(run.status, 0, `${file}: ${run.stderr}`);
    assert.strictEqual(run.stderr, '');
    const lines = run.stdout.split('\n');
    assert.deepStrictEqual(lines.slice(1), [''], file);
    const line = JSON.parse(lines[0]);
    assert.strictEqual(line.workload, 'noop');
    assert.strictEqual(line.backend, 'none');
    assert.strictEqual(line.variant, `noop/node/${path.basename(file, '.mjs')}@none`);
    assert.deepStrictEqual([line.iterations, line.ok, line.bytes], [50, 50, 0]);
    assert.strictEqual(line.concurrency, line.mode === 'sequential' ? 1 : 0);
  }
});

test('a program says what is wrong: usage errors exit 2 with the usage, a bad fixture exits 3', () => {
  const cases = [
    [['node/noop/callback-parallel.mjs', '--file', 'x'], 2, /unknown flag "--file"\nusage: node\/noop\/callback-parallel\.mjs /],
    [['node/readfile/callback-parallel.mjs', '--iterations', '0'], 2, /--iterations must be a positive integer, got 0\nusage: /],
    [['node/readfile/callback-parallel.mjs', '--file', 'node'], 3, /^node\/readfile\/callback-parallel\.mjs: fixture node is a directory/],
    [['node/lib/nodetest.mjs', 'node/readfile/nope.mjs'], 2, /unknown variant "node\/readfile\/nope\.mjs" \(no such file\)/],
    [['node/lib/nodetest.mjs', 'node/lib/limit.mjs'], 2, /unknown variant "node\/lib\/limit\.mjs" \(it exports no variant\)/],
    [['node/lib/nodetest.mjs', 'node/readfile/await-parallel.mjs', '--file', 'nope'], 3, /fixture nope is missing/],
  ];
  for (const [args, status, message] of cases) {
    const run = runNode(args);
    assert.strictEqual(run.status, status, args.join(' '));
    assert.strictEqual(run.stdout, '', args.join(' '));
    assert.match(run.stderr, message, args.join(' '));
  }
});

test('the node --test method times any workload\'s variant and says so in the line', () => {
  const run = runNode(['node/lib/nodetest.mjs', 'node/noop/promise-sequential.mjs', '--iterations', '20']);
  assert.strictEqual(run.status, 0, run.stderr);
  const line = JSON.parse(run.stdout);
  assert.strictEqual(line.method, 'nodetest');
  assert.strictEqual(line.variant, 'noop/node/promise-nodetest-sequential@none');
  assert.deepStrictEqual([line.ok, line.concurrency, line.bytes], [20, 1, 0]);
});

test('quote escapes bytes as the C and Go programs do and cuts at 40 with an ellipsis', () => {
  assert.strictEqual(quote(Buffer.from('Hello, world\n')), 'Hello, world\\n');
  assert.strictEqual(quote(Buffer.from('a\tb\rc\\d\x00\x1f\x7f', 'latin1')), 'a\\tb\\rc\\\\d\\x00\\x1f\\x7f');
  assert.strictEqual(quote(Buffer.from([0xff, 0xc3, 0xa9])), '\\xff\\xc3\\xa9');
  assert.strictEqual(quote(Buffer.alloc(QUOTE_MAX, 'x')), 'x'.repeat(QUOTE_MAX));
  assert.strictEqual(quote(Buffer.alloc(QUOTE_MAX + 1, 'x')), `${'x'.repeat(QUOTE_MAX)}...`);
  assert.strictEqual(quote(Buffer.alloc(20 << 20, 0xff)).length, 4 * QUOTE_MAX + 3);
});

test('a read verifies by its bytes, not by text decoded from them', () => {
  const verify = readfile.verifier({ expect: 'Hello, world\uFFFD' });
  assert.strictEqual(verify(0, Buffer.from('Hello, world\uFFFD')), 15);
  assert.strictEqual(verify(1, Buffer.from('Hello, world\xff', 'latin1')),
    "read 13 bytes 'Hello, world\\xff', expected 15 bytes 'Hello, world\\xef\\xbf\\xbd'");
  assert.match(readfile.verifier({ expect: 'x' })(2, 'x'), /not bytes/);
});

// Runs a bounded await variant over a stand-in fs.promises.readFile that
// completes on a later turn, and returns the most reads it saw in flight and
// the most async functions it saw started but not finished.
async function boundedShape(file, n, k) {
  const { variant } = await import(pathToFileURL(path.join(ROOT, 'node', 'readfile', file)).href);
  const real = fsp.readFile;
  let inFlight = 0;
  let maxInFlight = 0;
  fsp.readFile = () => new Promise((resolve) => {
    maxInFlight = Math.max(maxInFlight, ++inFlight);
    setImmediate(() => { inFlight--; resolve(Buffer.from('Hello, world')); });
  });
  const failures = [];
  const pass = new Pass(readfile, { file: 'f', expect: 'Hello, world' }, n, k, (m) => failures.push(m));
  try {
    await variant.run(pass);
  } finally {
    fsp.readFile = real;
  }
  assert.deepStrictEqual(failures, []);
  assert.strictEqual(pass.ok, n);
  return maxInFlight;
}

test('await-workers-bounded keeps exactly K reads in flight, as the limiter variant does', async () => {
  assert.strictEqual(await boundedShape('await-workers-bounded.mjs', 50, 4), 4);
  assert.strictEqual(await boundedShape('await-workers-bounded.mjs', 3, 8), 3);
  assert.strictEqual(await boundedShape('await-bounded.mjs', 50, 4), 4);
});

test('await-workers-bounded is the shape of C await-bounded and each about says how they differ', () => {
  const catalogFile = path.join(ROOT, 'catalog', 'readfile.json');
  const text = fs.readFileSync(catalogFile, 'utf-8');
  assert.match(text, /"shape": "workers", "mode": "bounded", "backend": "fs.promises"/);
  assert.match(text, /"await-bounded": "K C async functions[^"]*await-workers-bounded[^"]*limiter/);
  assert.match(text, /"bounded": "N async functions, one per read[^"]*K workers/);
});

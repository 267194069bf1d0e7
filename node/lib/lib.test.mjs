// Unit tests of lib/limit.mjs and the pure parts of lib/contract.mjs: node --test node/lib/
import test from 'node:test';
import assert from 'node:assert';
import { limiter } from './limit.mjs';
import { parseArgs, UsageError, effectiveConcurrency, Pass } from './contract.mjs';

const tick = () => new Promise((resolve) => setImmediate(resolve));

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

test('parseArgs takes both flag forms and rejects bad counts and unknown flags', () => {
  const opts = parseArgs(['--iterations', '5', '--expect=hi', '--concurrency', '3', '--warmup=2', '--file', 'f']);
  assert.deepStrictEqual(opts, { iterations: 5, expect: 'hi', concurrency: 3, warmup: 2, file: 'f' });
  assert.deepStrictEqual(parseArgs(['--help']), { help: true });
  for (const bad of [['--iterations', '0'], ['--iterations', '-5'], ['--iterations', 'abc'],
    ['--iterations', '1.5'], ['--warmup', '-1'], ['--nope', '1'], ['stray'], ['--iterations']]) {
    assert.throws(() => parseArgs(bad), UsageError, bad.join(' '));
  }
});

test('effective concurrency is 1 sequential, 0 parallel and the bound (default 64) bounded', () => {
  assert.strictEqual(effectiveConcurrency('sequential', 9), 1);
  assert.strictEqual(effectiveConcurrency('parallel', 9), 0);
  assert.strictEqual(effectiveConcurrency('bounded', 9), 9);
  assert.strictEqual(effectiveConcurrency('bounded', 0), 64);
});

test('a pass counts verified completions and reports the first wrong one', () => {
  const failures = [];
  const pass = new Pass({ file: 'f', expect: 'héllo' }, 2, 0, (m) => failures.push(m));
  pass.begin();
  assert.strictEqual(pass.check(0, null, 'héllo'), true);
  assert.strictEqual(pass.t1, 0n);
  assert.strictEqual(pass.check(1, null, 'hello'), false);
  assert.strictEqual(pass.check(1, Object.assign(new Error('gone'), { code: 'ENOENT' })), false);
  assert.strictEqual(pass.check(1, null, 'héllo'), true);
  assert.ok(pass.t1 >= pass.t0 && pass.t1 > 0n);
  assert.strictEqual(pass.ok, 2);
  assert.strictEqual(pass.bytes, 12); // 'héllo' is 6 bytes in UTF-8
  assert.match(failures[0], /^iteration 1: read "hello", expected "héllo"$/);
  assert.match(failures[1], /^iteration 1: read failed: ENOENT gone$/);
});

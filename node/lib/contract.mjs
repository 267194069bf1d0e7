// contract.mjs -- the program contract (DESIGN section 3) for every Node.js
// variant of every workload: the generic flags, the workload's own flags,
// untimed warm-up, in-process timing, verification of every completion, CPU
// time and peak RSS, --passes P timed passes in one process (each over all
// N, each verified and timed alike; the line lists their times in
// passes_elapsed_ns and its other figures are the first pass's), the one
// JSON line, the exit codes and the id rule.  It
// knows nothing about any workload.
//
// A workload module (node/<workload>/workload.mjs) describes its operation
// (node/readfile/workload.mjs and node/noop/workload.mjs are the examples):
//
//   export const readfile = defineWorkload({
//     name: 'readfile', unit: 'read',
//     flags: { file: { value: <default>, arg: 'PATH', about: '...' }, ... },
//     setup(opts) { return null or a sentence },   // before the clock: exit 3
//     verifier(opts) { return (i, value) => bytes or a sentence },
//     fields(pass) { return { hits: pass.hits } },  // optional: the line's
//   });                                              // own fields, after runtime
//
// A variant file describes itself and hands over to main():
//
//   export const variant = { workload: readfile, style: 'callback',
//     mode: 'parallel', backend: 'fs.readFile', run(pass, done) { ... } };
//   main(variant, import.meta.url);
//
// (an optional `shape` names a second way of writing a style, e.g. 'counter').
// run(pass, done) starts pass.n operations, reports each completion with
// pass.check(i, err, value), and either calls done() or returns a promise
// that settles after its last completion.  It starts the clock itself with
// pass.begin(), once, right before its first per-operation allocation
// (DESIGN section 3: the operations' records, promises, closures, timers,
// connections are inside the clock; what no operation owns, a promisified
// function or an agent's options, may come before); a pass that never
// begins fails.  The pass also carries the
// workload's flag values under their names (pass.file, pass.expect; a flag
// --delay-ms would be pass.delayMs) and pass.concurrency for bounded modes.
// The clock stops inside check() when the n-th completion verifies, so how a
// style signals the end is not timed.  A seed's method that times sections of
// a pass and sums them, as seed 004 did, stops the clock between them with
// pass.pause() and starts it again with pass.resume().  A failed check ends the process at
// once with exit code 1 and one line on stderr naming the iteration, which is
// why styles need no error paths of their own beyond routing errors into
// check().  A workload's own fields of the line (its `fields` in the
// catalog) are what its fields(pass) returns ({ name: integer }, written
// after runtime in that order) after the timed pass: the style, or the
// workload's code the styles share, leaves the facts on the pass under names
// of its own (cacheloop's pass.hits, tasks' pass.startNs), and fields() names
// them as the line does, so every variant of a workload writes the same
// fields in the same order.

import fs from 'fs';
import path from 'path';
import { fileURLToPath } from 'url';
import v8 from 'v8';

/**
 * process.resourceUsage(), which is Node 12.6's.  Before it (Node 10 and 8, which
 * runtimes/lock.json has for Linux alone) the two counts the contract takes
 * come from /proc/self: the peak RSS in KiB (VmHWM, what getrusage gives as
 * ru_maxrss on Linux) and the process's minor page faults (DESIGN section 11).
 */
export const resourceUsage = process.resourceUsage ? () => process.resourceUsage() : procUsage;

function procUsage() {
  const hwm = /^VmHWM:\s+(\d+) kB$/m.exec(fs.readFileSync('/proc/self/status', 'utf-8'));
  const stat = fs.readFileSync('/proc/self/stat', 'utf-8');
  // After "pid (comm) ": state is field 3, minflt field 10.
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return { maxRSS: hwm ? Number(hwm[1]) : 0, minorPageFault: Number(fields[7]) };
}

export const EXIT_OK = 0;
export const EXIT_VERIFY = 1;
export const EXIT_USAGE = 2;
export const EXIT_ENV = 3;

// The bound of a bounded variant when --concurrency is 0: the one place in Node.
export const DEFAULT_BOUND = 64;

/** The project root, which program names in messages are relative to. */
export const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');

// The most timed passes one process runs (--passes P, from 1): the line lists
// each pass's time, so P bounds its length (C's AB_PASSES_MAX, Go's MaxPasses).
export const MAX_PASSES = 10000;

// The flags every program takes, whatever its workload: all counts.
const GENERIC_FLAGS = {
  iterations: { value: 10000, arg: 'N', about: (unit) => `${unit}s in the timed section, a positive integer` },
  concurrency: { value: 0, arg: 'K', about: (unit) => `${unit}s in flight for bounded variants; 0 means ${DEFAULT_BOUND} there` },
  warmup: { value: 0, arg: 'N', about: (unit) => `untimed ${unit}s before the timed section` },
  passes: { value: 1, arg: 'P', range: [1, MAX_PASSES], about: () => `timed passes of N after the warm-up, 1 to ${MAX_PASSES}` },
  lockstep: { value: 0, arg: '0|1', range: [0, 1], about: () => "1: after the warm-up, a timed pass per 'pass' on stdin, 'end' to finish (DESIGN section 3)" },
};

// Names a workload flag may not take: the generic flags, --help, and what a
// Pass holds of its own (a workload's values are copied onto the pass).
const RESERVED = new Set([...Object.keys(GENERIC_FLAGS), 'help', 'h', 'n', 'ok', 'bytes', 't0', 't1',
  'unit', 'verify', 'onFailure', 'check', 'fail', 'begin', 'mark', 'preclock', 'paused', 'pausedAt', 'pause',
  'resume', 'elapsedNs']);

const FLAG_NAME = /^[a-z][a-z0-9]*(?:-[a-z0-9]+)*$/;
const BACKEND = /^[A-Za-z0-9._]+$/;
const WORD = /^[a-z]+$/;

/** The property a flag's value goes under: --delay-ms -> delayMs. */
export function propertyName(flag) {
  return flag.replace(/-([a-z0-9])/g, (_, c) => c.toUpperCase());
}

/**
 * Checks a workload's description and returns it.  Its flags map a flag name
 * without the dashes to { value (the default, a string or, with integer:
 * true, a non-negative integer), range ([lo, hi], optional with integer: the
 * values it takes; anything else, digits or not, is "--flag must be an
 * integer from lo to hi"), arg (the placeholder in the usage), about,
 * validate(value) (optional: a usage-error sentence or null) }.  setup(opts)
 * (optional) runs once before any warm-up and returns a sentence when the
 * environment is wrong (exit 3), else null.  verifier(opts) returns the
 * per-completion check: (i, value) => the bytes the completion accounts for,
 * or a sentence saying what is wrong.  unit names one operation in messages.
 * fields(pass) (optional) returns the workload's own fields of the line from
 * what the timed pass left on the pass: { name: integer }, in the line's order.
 */
export function defineWorkload(workload) {
  const { name, unit, flags = {}, verifier, fields } = workload;
  if (!WORD.test(name || '')) throw new TypeError(`a workload needs a name of lower-case letters, got "${name}"`);
  if (!unit) throw new TypeError(`workload ${name} needs a unit (what one operation is called)`);
  if (typeof verifier !== 'function') throw new TypeError(`workload ${name} needs a verifier(opts)`);
  if (fields !== undefined && typeof fields !== 'function') throw new TypeError(`workload ${name}: fields must be a function of the pass`);
  for (const [flag, spec] of Object.entries(flags)) {
    if (!FLAG_NAME.test(flag) || RESERVED.has(propertyName(flag))) {
      throw new TypeError(`workload ${name}: --${flag} is not a name a workload flag may take`);
    }
    const integer = Number.isSafeInteger(spec.value) && spec.value >= 0;
    if (spec.integer ? !integer : typeof spec.value !== 'string') {
      throw new TypeError(`workload ${name}: --${flag} has a default of the wrong type`);
    }
  }
  return Object.freeze({ ...workload, flags });
}

/** The flags a program of this workload takes, generic ones first. */
function flagsOf(workload) {
  const all = {};
  for (const [flag, spec] of Object.entries(GENERIC_FLAGS)) {
    all[flag] = { ...spec, integer: true, about: spec.about(workload.unit) };
  }
  return Object.assign(all, workload.flags);
}

/** Every option at its default: the generic flags' and the workload's. */
export function defaults(workload) {
  const opts = {};
  for (const [flag, spec] of Object.entries(flagsOf(workload))) opts[propertyName(flag)] = spec.value;
  return opts;
}

export function usageText(prog, workload, operand = '') {
  const flags = Object.entries(flagsOf(workload));
  const synopsis = flags.map(([flag, spec]) => `[--${flag} ${spec.arg}]`).join(' ');
  const width = Math.max(...flags.map(([flag, spec]) => flag.length + spec.arg.length + 3), 6);
  const line = (left, about) => `  ${left.padEnd(width)}  ${about}`;
  return [
    `usage: ${prog}${operand ? ' ' + operand : ''} ${synopsis}`,
    ...flags.map(([flag, spec]) => line(`--${flag} ${spec.arg}`,
      `${spec.about} (default ${spec.integer ? spec.value : JSON.stringify(spec.value)})`)),
    line('--help', 'this text'),
  ].join('\n');
}

/** A usage error: a message for stderr and exit code 2. */
export class UsageError extends Error {}

/**
 * Parses the generic flags and the workload's (`--name value` or
 * `--name=value`).  Returns the options by property name, or { help: true }
 * for --help; throws UsageError.
 */
export function parseArgs(workload, args) {
  const flags = flagsOf(workload);
  const opts = defaults(workload);
  for (let k = 0; k < args.length; k++) {
    const arg = args[k];
    if (arg === '--help' || arg === '-h') return { help: true };
    const m = /^--?([a-z][a-z0-9-]*)(?:=(.*))?$/s.exec(arg);
    if (!m) throw new UsageError(`unexpected argument "${arg}"`);
    const flag = m[1];
    const spec = Object.prototype.hasOwnProperty.call(flags, flag) ? flags[flag] : null;
    if (!spec) throw new UsageError(`unknown flag "${arg}"`);
    let value = m[2];
    if (value === undefined) {
      if (k + 1 >= args.length) throw new UsageError(`--${flag} needs a value`);
      value = args[++k];
    }
    if (spec.integer) {
      const digits = /^[0-9]+$/.test(value) && Number.isSafeInteger(Number(value));
      if (spec.range && !(digits && Number(value) >= spec.range[0] && Number(value) <= spec.range[1])) {
        // One rule, said once, as C and Go say it (-1 and x are out of it too).
        throw new UsageError(`--${flag} must be an integer from ${spec.range[0]} to ${spec.range[1]}, got "${value}"`);
      }
      if (!digits) {
        throw new UsageError(`--${flag} must be a ${flag === 'iterations' ? 'positive' : 'non-negative'} integer, got "${value}"`);
      }
      value = Number(value);
    }
    const problem = spec.validate ? spec.validate(value) : null;
    if (problem) throw new UsageError(problem);
    opts[propertyName(flag)] = value;
  }
  if (opts.iterations < 1) {
    throw new UsageError(`--iterations must be a positive integer, got ${opts.iterations}`);
  }
  if (opts.lockstep === 1 && opts.passes !== 1) {
    throw new UsageError('--lockstep runs one pass a command: --passes must be 1');
  }
  return opts;
}

/**
 * One pass (warm-up or timed) over n operations.  check() verifies a
 * completion; the n-th verified one stamps the end of the timed section.
 */
export class Pass {
  constructor(workload, opts, n, concurrency, onFailure) {
    for (const flag of Object.keys(workload.flags)) {
      const name = propertyName(flag);
      this[name] = opts[name];
    }
    this.unit = workload.unit;
    this.verify = workload.verifier(opts);
    this.n = n;
    this.concurrency = concurrency;
    this.ok = 0;
    this.bytes = 0;
    this.t0 = 0n;
    this.t1 = 0n;
    this.paused = 0n;
    this.pausedAt = 0n;
    this.onFailure = onFailure;
    this.mark = null;
    this.preclock = { heapBytes: 0, faults: 0 };
  }

  /**
   * Takes the mark begin() measures from: V8's heap in use and the minor page
   * faults now.  runPass calls it right before the variant's run.
   */
  markStart() {
    this.mark = { heap: v8.getHeapStatistics().used_heap_size, faults: resourceUsage().minorPageFault };
  }

  /**
   * Starts the clock (DESIGN section 3): the variant calls it once, right
   * before its first per-operation allocation.  It first records what the
   * pass did since markStart (preclock.heapBytes: how much V8's heap in use
   * grew, which a collection in between may lower by older garbage, never
   * raise; preclock.faults: minor page faults; the line's
   * preclock_heap_bytes and preclock_faults), then stamps t0.
   */
  begin() {
    if (this.t0 !== 0n) throw new Error('pass.begin() called twice');
    if (this.mark) {
      const heap = v8.getHeapStatistics().used_heap_size;
      const faults = resourceUsage().minorPageFault;
      this.preclock = { heapBytes: Math.max(0, heap - this.mark.heap),
        faults: Math.max(0, faults - this.mark.faults) };
      this.mark = null;
    }
    this.t0 = process.hrtime.bigint();
  }

  /**
   * Stops the clock between two timed sections of a pass, for a seed's method
   * that times sections and sums them (seed 004's: each repetition from its
   * own process.hrtime to its own, node/asyncfib/lib/rssclock.mjs); resume()
   * starts it again.  What runs in between is not timed: the pass's time is
   * its span less every pause.
   */
  pause() {
    if (this.t0 === 0n || this.pausedAt !== 0n) throw new Error('pass.pause() outside the clock');
    this.pausedAt = process.hrtime.bigint();
  }

  resume() {
    if (this.pausedAt === 0n) throw new Error('pass.resume() without pass.pause()');
    this.paused += process.hrtime.bigint() - this.pausedAt;
    this.pausedAt = 0n;
  }

  /** The timed pass's time in ns: from begin() to the n-th check, less its pauses. */
  elapsedNs() {
    return Number(this.t1 - this.t0 - this.paused);
  }

  /**
   * Verifies the completion of iteration i: no error and the value the
   * workload expects.  Returns true when it verified; otherwise reports the
   * failure.
   */
  check(i, err, value) {
    if (err) return this.fail(i, `${this.unit} failed: ${[err.code, err.message].filter(Boolean).join(' ')}`);
    const bytes = this.verify(i, value);
    if (typeof bytes !== 'number') return this.fail(i, bytes);
    this.bytes += bytes;
    if (++this.ok === this.n) this.t1 = process.hrtime.bigint();
    return true;
  }

  /** Reports the first failure; i is null when the style cannot tell which operation. */
  fail(i, reason) {
    this.onFailure(i === null ? `a ${this.unit}: ${reason}` : `iteration ${i}: ${reason}`);
    return false;
  }
}

/**
 * Runs one pass of the variant; resolves when the style says it is done.  A
 * pass whose variant never called pass.begin() fails (pass.fail).
 */
export async function runPass(variant, pass) {
  pass.markStart();
  await new Promise((resolve, reject) => {
    const ret = variant.run(pass, resolve);
    if (ret && typeof ret.then === 'function') ret.then(resolve, reject);
  });
  if (pass.t0 === 0n) pass.fail(pass.ok, 'the variant never started its clock (pass.begin())');
}

/** The concurrency a variant runs with, as the result line reports it. */
export function effectiveConcurrency(mode, requested) {
  if (mode === 'sequential') return 1;
  if (mode === 'bounded') return requested > 0 ? requested : DEFAULT_BOUND;
  if (mode === 'parallel') return 0; // every operation in flight at once
  throw new TypeError(`unknown mode "${mode}"`);
}

/**
 * The most operations a variant may have in flight at once: a parallel
 * variant holds them in one array (Promise.all, new Array(n)), and a
 * JavaScript array holds at most 2^32 - 1 elements (more throws "RangeError:
 * Invalid array length" mid-run).  main() refuses more with exit 3 and one
 * line before anything runs, as C and Go refuse what they cannot hold.
 */
export const MAX_IN_FLIGHT = 2 ** 32 - 1;

/**
 * The most promises one Promise.all takes: V8 throws "RangeError: Too many
 * elements passed to Promise.all" beyond 2^21 - 1, after every promise was
 * made (tens of seconds and gigabytes at N = 2^21).  A variant that joins all
 * N operations with one Promise.all says so (`joinsAll: true`) and main()
 * refuses a larger N with exit 3 and one line before anything runs.
 */
export const PROMISE_ALL_MAX = 2 ** 21 - 1;

/** How many of n operations are in flight at once with K = k (effectiveConcurrency). */
export function inFlight(n, k) {
  return k === 0 || k > n ? n : k;
}

/** style[-shape][-method]-mode, the method only when not inprocess: a variant's name (DESIGN section 4). */
export function variantName({ style, shape = '', method = 'inprocess', mode }) {
  return style + (shape ? `-${shape}` : '') + (method !== 'inprocess' ? `-${method}` : '') + `-${mode}`;
}

/** lang/name@backend: the id without the workload. */
export function variantLabel(fields) {
  return `${fields.lang}/${variantName(fields)}@${fields.backend}`;
}

/** workload/lang/name@backend: the one id rule, the same in C, Go and Python. */
export function variantId(fields) {
  return `${fields.workload}/${variantLabel(fields)}`;
}

/**
 * The fields of a variant declared in a file, timed by `method`, in the
 * order of the line.  Throws TypeError when the declaration is not a variant.
 */
export function variantFields(variant, method = 'inprocess') {
  const { workload, style, shape = '', mode, backend } = variant || {};
  if (!workload || typeof workload.verifier !== 'function') throw new TypeError('a variant names its workload (defineWorkload)');
  if (!WORD.test(style || '') || (shape && !WORD.test(shape))) throw new TypeError(`bad style or shape "${style}", "${shape}"`);
  effectiveConcurrency(mode, 0);
  if (!BACKEND.test(backend || '')) throw new TypeError(`a backend is a name of [A-Za-z0-9._], got "${backend}"`);
  if (typeof variant.run !== 'function') throw new TypeError('a variant has a run(pass, done)');
  const fields = { workload: workload.name, lang: 'node', style, shape, mode, method,
    backend: ioUring() ? `${backend}.uring` : backend };
  return { ...fields, variant: variantId(fields) };
}

/**
 * True when libuv was told to use io_uring for file operations
 * (UV_USE_IO_URING=1, read as Node 20's libuv reads it: a number above 0).
 * Such a run is another backend: its id's backend gets ".uring" and its
 * runtime names the variable.
 */
export function ioUring() {
  return Number.parseInt(process.env.UV_USE_IO_URING || '', 10) > 0;
}

export function runtimeName() {
  const uring = ioUring() ? `, UV_USE_IO_URING=${process.env.UV_USE_IO_URING}` : '';
  return `node ${process.version} (V8 ${process.versions.v8}, libuv ${process.versions.uv}${uring})`;
}

/**
 * The contract's JSON line (DESIGN section 3): the variant's fields, then the
 * measurements, then the workload's own fields (measured.workloadFields, what
 * its fields(pass) returned) in their order.
 */
export function resultLine(fields, measured) {
  return JSON.stringify({
    workload: fields.workload,
    lang: fields.lang,
    style: fields.style,
    shape: fields.shape,
    mode: fields.mode,
    method: fields.method,
    backend: fields.backend,
    variant: fields.variant,
    iterations: measured.iterations,
    // The most in flight (DESIGN section 3): 1, 0 for all N, or min(K, N).
    concurrency: Math.min(measured.concurrency, measured.iterations),
    ok: measured.ok,
    bytes: measured.bytes,
    elapsed_ns: measured.elapsed_ns,
    user_us: measured.user_us,
    sys_us: measured.sys_us,
    peak_rss_kb: measured.peak_rss_kb,
    idle_rss_kb: measured.idle_rss_kb,
    runtime: measured.runtime || runtimeName(),
    ...(measured.workloadFields || {}),
    // The most a timed pass did before its clock (Pass.begin), when measured.
    ...(measured.preclock ? { preclock_heap_bytes: measured.preclock.heapBytes,
      preclock_faults: measured.preclock.faults } : {}),
    // How long the warm-up took (outside the clock), when measured.
    ...(measured.warmup_ns !== undefined ? { warmup_ns: measured.warmup_ns } : {}),
    // A harness's own memory figure (perfjs: the largest RSS sampled less the RSS at its start).
    ...(measured.sampled_rss_kb !== undefined ? { sampled_rss_kb: measured.sampled_rss_kb } : {}),
    // Every timed pass's time, the first being elapsed_ns (one by default).
    passes_elapsed_ns: measured.passes_elapsed_ns !== undefined ? measured.passes_elapsed_ns : [measured.elapsed_ns],
  });
}

/** How many bytes of a value quote() shows, as the C and Go programs do. */
export const QUOTE_MAX = 40;

/**
 * Up to QUOTE_MAX bytes of `bytes` (a Buffer) for a one-line failure message,
 * in the C and Go programs' format: \n, \t, \r and \\ escaped, every other
 * control byte and every byte above 0x7e as \xNN, "..." when cut.  Its cost
 * and length do not depend on the size of `bytes`.
 */
export function quote(bytes) {
  let out = '';
  const n = Math.min(bytes.length, QUOTE_MAX);
  for (let k = 0; k < n; k++) {
    const c = bytes[k];
    if (c === 0x0a) out += '\\n';
    else if (c === 0x09) out += '\\t';
    else if (c === 0x0d) out += '\\r';
    else if (c === 0x5c) out += '\\\\';
    else if (c < 0x20 || c > 0x7e) out += `\\x${c.toString(16).padStart(2, '0')}`;
    else out += String.fromCharCode(c);
  }
  return bytes.length > QUOTE_MAX ? `${out}...` : out;
}

/** One line on stderr, written synchronously so it survives process.exit(). */
export function say(message) {
  try {
    fs.writeSync(2, message.endsWith('\n') ? message : message + '\n');
  } catch {
    // stderr itself cannot be written: the exit code is all that is left.
  }
}

/**
 * True when fd 1 was closed when node started: node (PlatformInit, before any
 * JavaScript) then opens /dev/null read-write in its place, and the line
 * would vanish with exit 0.  What it opens is exactly what a caller's
 * read-write /dev/null is (Python's subprocess.DEVNULL, a shell's
 * 1<>/dev/null: same device, same flags), so that too counts as closed; C,
 * which runs before anything reopens fd 1, tells them apart (DESIGN section
 * 3).  A /dev/null open for writing only (a shell's >/dev/null) or for
 * reading only is not node's: it is open, the line goes there or its write
 * fails.  Go tells it the same way.
 */
export function stdoutClosed() {
  let out;
  try {
    out = fs.fstatSync(1);
  } catch (err) {
    return err.code === 'EBADF';
  }
  try {
    if (!out.isCharacterDevice() || out.rdev !== fs.statSync('/dev/null').rdev) return false;
    fs.readSync(1, Buffer.alloc(1), 0, 1, null); // /dev/null readable: 0 bytes
    fs.writeSync(1, Buffer.alloc(0)); // and writable: a read-only one fails (EBADF)
    return true;
  } catch {
    return false;
  }
}

/** Ends the process with exit 3 and one line when stdout is closed (stdoutClosed). */
export function exitIfStdoutClosed(prog) {
  if (stdoutClosed()) {
    say(`${prog}: stdout is closed: the result line cannot be written`);
    process.exit(EXIT_ENV);
  }
}

/**
 * Writes text to stdout synchronously, or ends the process with exit 3 and
 * one line on stderr when it cannot (stdout closed, a full disk such as
 * /dev/full, a closed pipe: Node ignores SIGPIPE, so the write fails with
 * EPIPE).  `what` names the text in that line ("result", "usage").
 */
export function emit(prog, what, text) {
  if (stdoutClosed()) {
    say(`${prog}: cannot write the ${what} to stdout: stdout is closed`);
    process.exit(EXIT_ENV);
  }
  const bytes = Buffer.from(text, 'utf-8');
  let done = 0;
  while (done < bytes.length) {
    try {
      done += fs.writeSync(1, bytes, done);
    } catch (err) {
      if (err.code === 'EAGAIN') continue; // a non-blocking pipe that is full for now
      say(`${prog}: cannot write the ${what} to stdout: ${err.message}`);
      process.exit(EXIT_ENV);
    }
  }
}

/**
 * Parses the command line (operand names what precedes the flags in the
 * usage line, if anything) and prepares the workload, or ends the process:
 * prints usage and exits 0 for --help, 2 for a usage error, 3 when the
 * workload's setup finds the environment wrong (a missing fixture).
 */
export function optionsOrExit(prog, workload, args, operand = '') {
  let opts;
  try {
    opts = parseArgs(workload, args);
  } catch (err) {
    if (!(err instanceof UsageError)) throw err;
    say(`${prog}: ${err.message}\n${usageText(prog, workload, operand)}`);
    process.exit(EXIT_USAGE);
  }
  if (opts.help) {
    emit(prog, 'usage', usageText(prog, workload, operand) + '\n');
    process.exit(EXIT_OK);
  }
  const problem = workload.setup ? workload.setup(opts) : null;
  if (problem) {
    say(`${prog}: ${problem}`);
    process.exit(EXIT_ENV);
  }
  return opts;
}

/** A file's name in messages: relative to the project root when inside it. */
export function programName(file) {
  const rel = path.relative(ROOT, file);
  return rel.startsWith('..') || path.isAbsolute(rel) ? file : rel.split(path.sep).join('/');
}

/** True when moduleUrl is the script node was started with. */
export function isEntry(moduleUrl) {
  return Boolean(process.argv[1]) && path.resolve(process.argv[1]) === fileURLToPath(moduleUrl);
}

/**
 * Resolves once a request has been through libuv's threadpool, which is then
 * started: its threads are part of the runtime's start, which stays outside
 * every clock (DESIGN section 3), as C's harness starts them before its clock
 * (ab_threadpool_start).  libuv starts the pool at its first request; Node 20's
 * ES module loader has usually made that request already, reading the entry
 * file through the pool, and this one makes sure of it whatever the loader
 * does, so that a pass with no warm-up does not start the pool inside its
 * clock.  It stats the project's root: no operation of any workload owns it.
 */
export function threadpoolStarted() {
  return new Promise((resolve) => fs.stat(ROOT, () => resolve()));
}

/**
 * Runs a warm-up pass (if any) and the opts.passes timed passes of the
 * variant (1 when not given), each over all N and each verified.
 * fail(message) is called, and must not return, when a completion does not
 * verify (the message names the iteration, and the pass after the first) or
 * the style finishes early.  Returns the first timed pass, the CPU time it
 * took, the peak RSS after it, how long the warm-up took, every timed pass's
 * time (passesNs) and the most any timed pass did before its clock
 * (preclock).
 */
export async function measure(variant, opts, concurrency, fail) {
  const warmupNs = await warmUp(variant, opts, concurrency, fail);
  const passes = opts.passes === undefined ? 1 : opts.passes;
  const passesNs = [];
  const preclock = { heapBytes: 0, faults: 0 };
  let first;
  for (let k = 0; k < passes; k++) {
    const which = k === 0 ? fail : (message) => fail(`timed pass ${k + 1} of ${passes}: ${message}`);
    const t = await timedPass(variant, opts, concurrency, which);
    if (k === 0) first = t;
    passesNs.push(t.ns);
    preclock.heapBytes = Math.max(preclock.heapBytes, t.pass.preclock.heapBytes);
    preclock.faults = Math.max(preclock.faults, t.pass.preclock.faults);
  }
  const { pass, cpu, idleRssKb, peakRssKb } = first;
  return { pass, cpu, idleRssKb, peakRssKb, warmupNs, passesNs, preclock };
}

/** The untimed warm-up pass of opts.warmup operations (none for 0): its time in ns. */
async function warmUp(variant, opts, concurrency, fail) {
  if (!(opts.warmup > 0)) return 0;
  const t0 = process.hrtime.bigint();
  const warm = new Pass(variant.workload, opts, opts.warmup, concurrency, (message) => fail(`warm-up ${message}`));
  await runPass(variant, warm);
  return Number(process.hrtime.bigint() - t0);
}

/**
 * One timed pass of N, verified (which(message) must not return): the pass,
 * its time in ns, the CPU time it took, and the peak RSS before (the idle
 * process: runtime started, set up, nothing in flight) and after it.
 */
async function timedPass(variant, opts, concurrency, which) {
  const pass = new Pass(variant.workload, opts, opts.iterations, concurrency, which);
  const idleRssKb = resourceUsage().maxRSS;
  const cpu0 = process.cpuUsage();
  await runPass(variant, pass);
  const cpu = process.cpuUsage(cpu0);
  // At least the idle figure: the kernel's peak is the larger of a
  // high-water mark it updates lazily and the RSS now, so after memory
  // went back (a GC) it can read lower than before the pass (as in C and Go).
  const peakRssKb = Math.max(resourceUsage().maxRSS, idleRssKb);
  if (pass.ok !== pass.n) which(`verified ${pass.ok} of ${pass.n} ${variant.workload.unit}s before the variant said it was done`);
  return { pass, ns: pass.elapsedNs(), cpu, idleRssKb, peakRssKb };
}

/** The line of a pass (measure's figures) for main and the lockstep protocol. */
function passLine(fields, variant, concurrency, m) {
  return resultLine(fields, {
    iterations: m.pass.n,
    concurrency,
    ok: m.pass.ok,
    bytes: m.pass.bytes,
    elapsed_ns: m.passesNs[0],
    user_us: m.cpu.user,
    sys_us: m.cpu.system,
    peak_rss_kb: m.peakRssKb,
    idle_rss_kb: m.idleRssKb,
    workloadFields: variant.workload.fields ? variant.workload.fields(m.pass) : {},
    preclock: m.preclock,
    warmup_ns: m.warmupNs,
    passes_elapsed_ns: m.passesNs,
  }) + '\n';
}

/**
 * The next line of standard input without its newline (read synchronously:
 * nothing runs between two passes), or null at its end.  buf holds what was
 * read past the line.
 */
function readCommand(buf) {
  for (;;) {
    const nl = buf.text.indexOf('\n');
    if (nl >= 0) {
      const line = buf.text.slice(0, nl);
      buf.text = buf.text.slice(nl + 1);
      return line.replace(/\r$/, '');
    }
    if (buf.text.length > 64) return buf.text; // longer than any command: refused as it is
    const chunk = Buffer.alloc(256);
    let n;
    try {
      n = fs.readSync(0, chunk, 0, chunk.length, null);
    } catch (err) {
      if (err.code === 'EAGAIN') {
        // A non-blocking pipe with nothing yet: wait a millisecond without
        // spinning, as the partner's pass runs on the same CPU meanwhile.
        Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 1);
        continue;
      }
      if (err.code === 'EOF') n = 0;
      else throw err;
    }
    if (n === 0) return buf.text.length ? buf.text : null;
    buf.text += chunk.toString('utf-8', 0, n);
  }
}

/**
 * The lockstep protocol of --lockstep 1 (DESIGN section 3), after the
 * warm-up: a ready line, a timed pass and its line for each "pass" read on
 * stdin, the process's figures for "end" (exit 0), exit 0 at the end of
 * stdin, and one line and exit 2 for any other command.
 */
async function lockstep(prog, fields, variant, opts, concurrency, warmupNs, fail) {
  emit(prog, 'ready line', JSON.stringify({ lockstep: 'ready', warmup_ns: warmupNs }) + '\n');
  const buf = { text: '' };
  let passes = 0;
  for (;;) {
    const cmd = readCommand(buf);
    if (cmd === null) process.exit(EXIT_OK);
    if (cmd === 'end') {
      const cpu = process.cpuUsage();
      emit(prog, 'end line', JSON.stringify({ lockstep: 'end', passes, user_us: cpu.user,
        sys_us: cpu.system, peak_rss_kb: resourceUsage().maxRSS }) + '\n');
      process.exit(EXIT_OK);
    }
    if (cmd !== 'pass') {
      say(`${prog}: lockstep: unknown command "${cmd.slice(0, 20)}" (pass or end)`);
      process.exit(EXIT_USAGE);
    }
    const t = await timedPass(variant, opts, concurrency, (message) => fail(`lockstep pass ${passes + 1}: ${message}`));
    passes++;
    emit(prog, 'result', passLine(fields, variant, concurrency, {
      ...t, warmupNs, passesNs: [t.ns], preclock: t.pass.preclock }));
  }
}

/**
 * The whole life of a variant program.  Does nothing unless moduleUrl is the
 * entry script, so the same file can be imported (by the seeds' methods).  A
 * wrapper that runs an imported variant in-process as a seed's method (seed
 * 002's cache shape) gives its method, the flags and the operand it took.
 */
export async function main(variant, moduleUrl, { method = 'inprocess', args = process.argv.slice(2), operand = '' } = {}) {
  if (!isEntry(moduleUrl)) return;
  // Node before 15 only warns about a rejection nobody handles and exits 0: a
  // program that fails must exit non-zero on every runtime it runs on.
  process.on('unhandledRejection', (err) => { throw err; });
  const fields = variantFields(variant, method);
  const prog = programName(fileURLToPath(moduleUrl));
  const opts = optionsOrExit(prog, variant.workload, args, operand);
  exitIfStdoutClosed(prog); // nowhere to write the result: say so before anything runs
  const concurrency = effectiveConcurrency(variant.mode, opts.concurrency);
  const most = Math.max(inFlight(opts.warmup, concurrency), inFlight(opts.iterations, concurrency));
  if (most > MAX_IN_FLIGHT) {
    say(`${prog}: ${most} operations in flight at once are more than a JavaScript array holds (${MAX_IN_FLIGHT}): lower N or K`);
    process.exit(EXIT_ENV);
  }
  const joined = variant.joinsAll ? Math.max(opts.warmup, opts.iterations) : 0;
  if (joined > PROMISE_ALL_MAX) {
    say(`${prog}: ${joined} promises joined by one Promise.all are more than V8 takes (${PROMISE_ALL_MAX}): lower N`);
    process.exit(EXIT_ENV);
  }
  await threadpoolStarted();
  let measured;
  const fail = (message) => {
    say(`${prog}: ${message}`);
    process.exit(EXIT_VERIFY);
  };
  try {
    if (opts.lockstep === 1) {
      await lockstep(prog, fields, variant, opts, concurrency, await warmUp(variant, opts, concurrency, fail), fail);
    }
    measured = await measure(variant, opts, concurrency, fail);
  } catch (err) {
    // A limit of the runtime met mid-run (an array or a Promise.all too
    // large for V8): the environment, one line, as for out of memory.
    if (!(err instanceof RangeError)) throw err;
    say(`${prog}: N = ${opts.iterations}: ${err.message}: a limit of V8, lower N or K`);
    process.exit(EXIT_ENV);
  }
  emit(prog, 'result', passLine(fields, variant, concurrency, measured));
}

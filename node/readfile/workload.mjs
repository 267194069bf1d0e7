// workload.mjs -- readfile for the Node.js variants: read a small file N
// times and check that every read returned exactly the expected text.  Its
// flags and their defaults live here and nowhere else in node/ (they equal
// catalog/readfile.json's, which a test compares); the variants in
// this folder import `readfile` and read pass.file as bytes (a Buffer), which
// the verifier compares with --expect's UTF-8 bytes.
import fs from 'fs';
import { defineWorkload, quote } from '../lib/contract.mjs';

/** Names the type of a file that is neither regular nor a directory. */
function fileKind(st) {
  if (st.isFIFO()) return 'a FIFO';
  if (st.isSocket()) return 'a socket';
  if (st.isCharacterDevice() || st.isBlockDevice()) return 'a device';
  return 'not a regular file';
}

/**
 * Returns null when `file` is a regular file this process can read, else a
 * sentence saying what is wrong and how to fix it (an environment error).
 */
export function fixtureProblem(file) {
  let st;
  try {
    st = fs.statSync(file);
  } catch (err) {
    if (err.code === 'ENOENT' || err.code === 'ENOTDIR') {
      return `fixture ${file} is missing: run from the project root or pass --file PATH`;
    }
    return `fixture ${file} cannot be examined: ${err.message}`;
  }
  if (st.isDirectory()) return `fixture ${file} is a directory: pass --file with a regular file`;
  // Opening a FIFO blocks until a writer comes: refuse anything but a regular file first.
  if (!st.isFile()) return `fixture ${file} is ${fileKind(st)}; --file must name a regular file`;
  try {
    fs.closeSync(fs.openSync(file, 'r'));
  } catch (err) {
    return `fixture ${file} is unreadable: ${err.code || err.message} (fix its permissions)`;
  }
  return null;
}

export const readfile = defineWorkload({
  name: 'readfile',
  unit: 'read',
  flags: {
    file: {
      value: 'fixtures/text.txt', arg: 'PATH',
      about: 'the fixture, relative to the working directory',
      validate: (value) => (value === '' ? '--file must name the fixture' : null),
    },
    expect: { value: 'Hello, world', arg: 'TEXT', about: 'the exact content every read must return' },
  },
  setup: (opts) => fixtureProblem(opts.file),
  /**
   * A read verifies when its bytes are exactly --expect's UTF-8 bytes.  Bytes,
   * not decoded text: decoding as UTF-8 turns every byte that is not UTF-8
   * into U+FFFD, so a file ending in \xff would pass for 'Hello, world\uFFFD'.
   */
  verifier({ expect }) {
    const expected = Buffer.from(expect, 'utf-8');
    return (i, data) => {
      if (!Buffer.isBuffer(data)) return `read a ${typeof data}, not bytes`;
      if (expected.equals(data)) return data.length;
      return `read ${data.length} bytes '${quote(data)}', expected ${expected.length} bytes '${quote(expected)}'`;
    };
  },
});

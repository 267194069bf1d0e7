// await registers its reaction before a later .then on the same promise.
const out = [];
let resolve;
const p = new Promise((r) => { resolve = r; });
async function f() { out.push('f-start'); const v = await p; out.push('f-got-' + v); }
f();
p.then((v) => out.push('then-' + v));
resolve(7);
out.push('resolved');
setTimeout(() => console.log(out.join(' ')));

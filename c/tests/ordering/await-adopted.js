// Awaiting a promise that is resolved with another promise: adoption ticks.
const out = [];
let resolve;
const p = new Promise((r) => { resolve = r; });
async function f() { await p; out.push('f'); }
f();
resolve(Promise.resolve(1));
Promise.resolve().then(() => out.push('t1')).then(() => out.push('t2')).then(() => out.push('t3'));
setTimeout(() => console.log(out.join(' ')));

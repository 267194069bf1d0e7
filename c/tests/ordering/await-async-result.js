// Awaiting an async function that returned a plain value: one tick.
const out = [];
async function inner() { out.push('inner'); return 1; }
async function outer() { const v = await inner(); out.push('outer-' + v); }
outer();
Promise.resolve().then(() => out.push('a')).then(() => out.push('b')).then(() => out.push('c'));
setTimeout(() => console.log(out.join(' ')));

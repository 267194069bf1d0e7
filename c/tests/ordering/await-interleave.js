// Two async functions awaiting in loops take turns, one tick each.
const out = [];
async function a() { for (let i = 0; i < 3; i++) { out.push('a' + i); await null; } }
async function b() { for (let i = 0; i < 3; i++) { out.push('b' + i); await null; } }
a();
b();
out.push('sync');
setTimeout(() => console.log(out.join(' ')));

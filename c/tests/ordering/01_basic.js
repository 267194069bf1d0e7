// Two then chains interleave one reaction per tick; synchronous code runs first.
console.log('sync 1');
Promise.resolve().then(() => console.log('a1')).then(() => console.log('a2'));
Promise.resolve().then(() => console.log('b1')).then(() => console.log('b2'));
console.log('sync 2');

// Microtasks queued by a timer callback run before the next timer callback.
const log = (s) => () => console.log(s);
setTimeout(() => { console.log('timeout 1'); Promise.resolve().then(log('micro 1')).then(log('micro 2')); }, 0);
setTimeout(() => { console.log('timeout 2'); }, 0);
Promise.resolve().then(log('sync micro'));
console.log('sync');

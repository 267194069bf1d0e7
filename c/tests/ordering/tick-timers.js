// Ticks and promise jobs queued by a timer callback, and those they queue, all run before the next timer callback.
const log = (s) => () => console.log(s);
setTimeout(() => {
  console.log('timeout 1');
  Promise.resolve().then(() => { console.log('micro 1'); process.nextTick(log('tick from micro 1')); });
  process.nextTick(() => { console.log('tick 1'); Promise.resolve().then(log('micro from tick 1')); });
}, 0);
setTimeout(() => {
  console.log('timeout 2');
  Promise.resolve().then(log('micro 2'));
  process.nextTick(log('tick 2'));
}, 0);
process.nextTick(log('sync tick'));
console.log('sync');

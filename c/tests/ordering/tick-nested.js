// A tick queued by a tick runs in the same pass, before any promise job, even one queued first.
const log = (s) => () => console.log(s);
Promise.resolve().then(log('a1'));
process.nextTick(() => {
  console.log('t1');
  Promise.resolve().then(log('a2'));
  process.nextTick(() => { console.log('t3'); process.nextTick(log('t4')); });
});
process.nextTick(log('t2'));

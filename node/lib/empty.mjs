// empty.mjs -- the empty Node program: the runner runs it once per round
// (`node node/lib/empty.mjs`), and its wall time is what starting and ending
// a Node process costs on this host (exec, V8 and the ES module loader,
// exit), which every Node variant's time outside its clock is compared with
// less it (DESIGN section 6).

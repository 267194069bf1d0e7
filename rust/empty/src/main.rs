//! rust-empty is the empty Rust program: the runner runs it once per round,
//! and its wall time is what starting and ending a Rust process costs on this
//! host (exec, the standard library's start, exit), which every Rust
//! variant's time outside its clock is compared with less it (DESIGN
//! section 6).  The variants start tokio's runtime outside their clock too,
//! and that is not in this figure: it is theirs.
fn main() {}

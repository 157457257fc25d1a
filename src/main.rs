//! The `lolli` binary: hands over to [`lolli::cli`] on a thread with a large
//! stack, so that parsing, compiling and printing very large terms (which
//! recurse on the syntax tree) cannot overflow it.  Proof search itself never
//! uses the Rust stack for recursion depth.

/// Stack size of the interpreter thread (reserved address space; pages are
/// only used as deep recursion needs them).
const STACK_BYTES: usize = 1 << 30;

fn main() {
    let worker = std::thread::Builder::new()
        .name("lolli".into())
        .stack_size(STACK_BYTES)
        .spawn(lolli::cli::main);
    let code = match worker.map(|h| h.join()) {
        Ok(Ok(code)) => code,
        Ok(Err(_)) => 101,
        Err(e) => {
            eprintln!("error: cannot start the interpreter thread: {e}");
            2
        }
    };
    std::process::exit(code);
}

//! The `lolli` binary: hands over to [`lolli::cli`].

fn main() {
    std::process::exit(lolli::cli::main());
}

fn main() {
    // Only `src` is searched for grammars: a search of the whole crate
    // would walk `target/` too, where other compilations are writing and
    // removing files at the same time (a clean build then failed, now and
    // then, on a temporary file of rustc that vanished during the walk).
    lalrpop::process_src().expect("the LALRPOP grammar must compile");
}

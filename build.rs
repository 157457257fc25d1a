fn main() {
    lalrpop::process_root().expect("the LALRPOP grammar must compile");
}

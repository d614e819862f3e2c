fn main() {
    eprintln!("cargo fptune: not yet wired up");
    std::process::exit(4);
}

//! The csift binary: everything lives in the library.

fn main() -> std::process::ExitCode {
    csift::run_main()
}

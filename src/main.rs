fn main() -> std::process::ExitCode {
    rung::cli::main()
}

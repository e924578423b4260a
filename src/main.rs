// mimalloc: the import parses on one thread and frees on another, which
// glibc's allocator serialises on arena locks.
#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn main() -> std::process::ExitCode {
    rung::cli::main()
}

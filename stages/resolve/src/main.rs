use clap::Parser as _;

#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn main() -> std::process::ExitCode {
    let args = resolve::Args::parse();
    schemas::cli::init_logging(&args.common);
    schemas::cli::main_with("resolve", || resolve::run(&args))
}

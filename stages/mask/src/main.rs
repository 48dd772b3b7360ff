use clap::Parser as _;

fn main() -> std::process::ExitCode {
    let args = mask::Args::parse();
    schemas::cli::init_logging(&args.common);
    schemas::cli::main_with("mask", || mask::run(&args))
}

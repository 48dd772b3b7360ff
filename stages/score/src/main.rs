use clap::Parser as _;

fn main() -> std::process::ExitCode {
    let args = score::Args::parse();
    schemas::cli::init_logging(&args.common);
    schemas::cli::main_with("score", || score::run(&args))
}

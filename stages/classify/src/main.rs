use clap::Parser as _;

fn main() -> std::process::ExitCode {
    let args = classify::Args::parse();
    schemas::cli::init_logging(&args.common);
    schemas::cli::main_with("classify", || classify::run(&args))
}

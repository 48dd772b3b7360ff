use clap::Parser as _;

fn main() -> std::process::ExitCode {
    let args = execute::Args::parse();
    schemas::cli::init_logging(&args.common);
    schemas::cli::main_with("execute", || execute::run(&args))
}

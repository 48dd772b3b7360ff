use clap::Parser as _;

fn main() -> std::process::ExitCode {
    let args = query::Args::parse();
    schemas::cli::init_logging(&args.common);
    schemas::cli::main_with("query", || query::run(&args))
}

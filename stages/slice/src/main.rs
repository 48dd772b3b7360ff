use clap::Parser as _;

fn main() -> std::process::ExitCode {
    let args = slice::Args::parse();
    schemas::cli::init_logging(&args.common);
    schemas::cli::main_with("slice", || slice::run(&args))
}

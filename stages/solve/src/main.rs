use clap::Parser as _;

fn main() -> std::process::ExitCode {
    let args = solve::Args::parse();
    schemas::cli::init_logging(&args.common);
    schemas::cli::main_with("solve", || solve::run(&args))
}

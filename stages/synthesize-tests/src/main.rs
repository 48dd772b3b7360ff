use clap::Parser as _;

fn main() -> std::process::ExitCode {
    let args = synthesize_tests::Args::parse();
    schemas::cli::init_logging(&args.common);
    schemas::cli::main_with("synthesize-tests", || synthesize_tests::run(&args))
}

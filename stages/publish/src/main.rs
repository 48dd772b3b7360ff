use clap::Parser as _;

fn main() -> std::process::ExitCode {
    let args = publish::Args::parse();
    schemas::cli::init_logging(&args.common);
    schemas::cli::main_with("publish", || publish::run(&args))
}

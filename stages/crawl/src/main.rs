//! The `crawl` binary: parses the arguments and runs [`crawl::run`].

use clap::Parser as _;

fn main() -> std::process::ExitCode {
    let args = crawl::Args::parse();
    schemas::cli::init_logging(&args.common);
    schemas::cli::main_with("crawl", || crawl::run(&args))
}

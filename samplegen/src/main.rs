//! `cargo run -p rung-samplegen -- [OUT_DIR]` writes rung's sample traces
//! (default `sample-traces`).
//! `cargo run -p rung-samplegen -- --synthetic DECISIONS SEED FILE` writes a
//! synthetic benchmark trace set (FILE `-` for stdout).

use std::fs::File;
use std::io::{self, Write};
use std::path::PathBuf;
use std::process::ExitCode;

fn synthetic(args: &[String]) -> io::Result<()> {
    let usage = || {
        io::Error::new(
            io::ErrorKind::InvalidInput,
            "usage: --synthetic DECISIONS SEED FILE",
        )
    };
    let [n, seed, file] = args else {
        return Err(usage());
    };
    let n: usize = n.parse().map_err(|_| usage())?;
    let seed: u64 = seed.parse().map_err(|_| usage())?;
    let stats = if file == "-" {
        rung_samplegen::synthetic(n, seed, &mut io::stdout().lock())?
    } else {
        let mut f = File::create(file)?;
        let s = rung_samplegen::synthetic(n, seed, &mut f)?;
        f.flush()?;
        s
    };
    eprintln!(
        "{} decisions in {} runs, {} bytes",
        stats.decisions, stats.runs, stats.bytes
    );
    Ok(())
}

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    if args.first().map(String::as_str) == Some("--synthetic") {
        return match synthetic(&args[1..]) {
            Ok(()) => ExitCode::SUCCESS,
            Err(e) => {
                eprintln!("rung-samplegen: {e}");
                ExitCode::FAILURE
            }
        };
    }
    let out = args
        .first()
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from("sample-traces"));
    match rung_samplegen::generate(&out) {
        Ok(()) => {
            println!("wrote {}", out.display());
            ExitCode::SUCCESS
        }
        Err(e) => {
            eprintln!("rung-samplegen: writing {}: {e}", out.display());
            ExitCode::FAILURE
        }
    }
}

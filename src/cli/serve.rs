//! `rung serve`: receive OTLP/HTTP traces into the database.

use std::time::Duration;

use clap::Args;

use super::Global;
use crate::error::{Error, Result};
use crate::serve;

/// The address `rung serve` listens on unless told otherwise: this machine
/// only, the OTLP/HTTP port.
pub const DEFAULT_LISTEN: &str = "127.0.0.1:4318";

#[derive(Debug, Args, Clone)]
pub struct ServeArgs {
    /// Where to listen (default 127.0.0.1:4318, this machine only). Any
    /// other address must be given here: rung serve has no authentication,
    /// so whoever can reach it can write into the database.
    #[arg(long, value_name = "ADDR")]
    pub listen: Option<String>,
    /// Import a trace whose root span has not arrived once no span of it
    /// arrived for this many seconds.
    #[arg(long, value_name = "SECS", default_value_t = 30)]
    pub flush_after: u64,
    /// Refuse (413) a request body over this many bytes, before or after
    /// gzip.
    #[arg(long, value_name = "BYTES", default_value_t = 16 * 1024 * 1024)]
    pub max_body: u64,
}

pub fn run(g: &Global, args: &ServeArgs) -> Result<()> {
    if args.flush_after == 0 {
        return Err(Error::usage("--flush-after needs at least 1 second"));
    }
    if args.max_body == 0 {
        return Err(Error::usage("--max-body needs at least 1 byte"));
    }
    let listen = args
        .listen
        .clone()
        .unwrap_or_else(|| DEFAULT_LISTEN.to_string());
    let addrs = serve::resolve(&listen)?;
    if !serve::loopback_only(&addrs) {
        // Only reachable with an explicit --listen: the default is loopback.
        eprintln!(
            "warning: listening on {listen}, which other machines can reach; rung serve has no authentication: anyone who can connect can write traces into {}",
            g.db.display()
        );
    }
    let config = g.config.as_deref().map(super::load_config).transpose()?;
    serve::run(&serve::Options {
        db: g.db.clone(),
        config,
        listen,
        flush_after: Duration::from_secs(args.flush_after),
        max_body: args.max_body,
        quiet: g.quiet,
        verbose: g.verbose > 0,
    })
}

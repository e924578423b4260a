//! A long listing's rows rendered on two threads while the next are read:
//! masking, escaping and JSON take most of a listing's time, and a row's
//! text depends only on the row (and where it falls, which its batch
//! carries). The text is handed on in the order the rows were read.

use std::sync::mpsc::{Receiver, SyncSender, sync_channel};

use crate::error::Result;

/// Threads rendering batches.
const WORKERS: usize = 2;

/// Batches waiting for each worker, and rendered ones waiting to be
/// taken from it: what waits stays small.
const DEPTH: usize = 2;

/// Rows a producer puts in one batch.
pub const BATCH: usize = 512;

/// Calls `produce` on this thread with a sink for batches; renders each
/// batch on one of [`WORKERS`] threads (batch `i` on worker `i %
/// WORKERS`); and hands each rendering to `take`, on a thread of its own,
/// in the order the batches were produced. `take` failing stops the
/// producing (its error is the one returned); the producer failing stops
/// it too, after what was produced before is taken.
pub fn ordered<B: Send, O: Send>(
    produce: impl FnOnce(&mut dyn FnMut(B) -> Result<()>) -> Result<()>,
    render: impl Fn(B) -> O + Sync,
    take: impl FnMut(O) -> Result<()> + Send,
) -> Result<()> {
    std::thread::scope(|scope| {
        let render = &render;
        let mut to: Vec<SyncSender<B>> = Vec::with_capacity(WORKERS);
        let mut from: Vec<Receiver<O>> = Vec::with_capacity(WORKERS);
        for _ in 0..WORKERS {
            let (batch_tx, batch_rx) = sync_channel::<B>(DEPTH);
            let (out_tx, out_rx) = sync_channel::<O>(DEPTH);
            scope.spawn(move || {
                for batch in batch_rx {
                    if out_tx.send(render(batch)).is_err() {
                        return; // the taker stopped
                    }
                }
            });
            to.push(batch_tx);
            from.push(out_rx);
        }
        let taker = scope.spawn(move || -> Result<()> {
            let mut take = take;
            let mut turn = 0usize;
            // Until every batch is taken and the producer is done.
            while let Ok(out) = from[turn % WORKERS].recv() {
                take(out)?;
                turn += 1;
            }
            Ok(())
        });
        let mut sent = 0usize;
        let produced = produce(&mut |batch| {
            to[sent % WORKERS]
                .send(batch)
                .map_err(|_| std::io::Error::other("the writer stopped"))?;
            sent += 1;
            Ok(())
        });
        drop(to);
        let took = match taker.join() {
            Ok(took) => took,
            Err(panic) => std::panic::resume_unwind(panic),
        };
        took.and(produced)
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Batches of numbers, each rendered as its lines: the text comes back
    /// whole and in order however the work falls between the threads.
    #[test]
    fn batches_come_back_in_the_order_produced() {
        let mut text = String::new();
        ordered(
            |sink| {
                for start in (0..10_000u32).step_by(7) {
                    sink((start..(start + 7).min(10_000)).collect::<Vec<_>>())?;
                }
                Ok(())
            },
            |batch: Vec<u32>| batch.iter().map(|n| format!("{n}\n")).collect::<String>(),
            |s: String| {
                text.push_str(&s);
                Ok(())
            },
        )
        .unwrap();
        let whole: String = (0..10_000u32).map(|n| format!("{n}\n")).collect();
        assert_eq!(text, whole);
    }

    /// A taker that fails stops the producer, and its error is the one
    /// told; a producer that fails has what it produced before taken.
    #[test]
    fn the_takers_error_stops_the_producer() {
        let mut produced = 0;
        let e = ordered(
            |sink| {
                for n in 0..1_000_000u32 {
                    produced += 1;
                    sink(n)?;
                }
                Ok(())
            },
            |n| n,
            |n| {
                if n == 5 {
                    Err(crate::error::Error::usage("full"))
                } else {
                    Ok(())
                }
            },
        )
        .unwrap_err();
        assert_eq!(e.to_string(), "full");
        assert!(produced < 100, "{produced}");

        let mut taken = Vec::new();
        let e = ordered(
            |sink| {
                for n in 0..3u32 {
                    sink(n)?;
                }
                Err(crate::error::Error::usage("bad row"))
            },
            |n| n * 10,
            |n| {
                taken.push(n);
                Ok(())
            },
        )
        .unwrap_err();
        assert_eq!(e.to_string(), "bad row");
        assert_eq!(taken, [0, 10, 20]);
    }
}

//! Ctrl-C: SIGINT sets a [`Cancel`] flag instead of killing loki, so the run stops at its next
//! safe point and still commits and seals (exit 130). A second SIGINT while the first is being
//! handled is absorbed the same way: the seal is short and must not be cut.
//!
//! The handler lives on its own thread with a one-thread runtime, so it works while the engine's
//! thread is blocked running a test suite. Children run in their own process groups, so the
//! terminal's SIGINT reaches loki only; the engine stops them at the safe point.

use loki_core::process::Cancel;

use crate::EngineError;

/// Installs the SIGINT handler and returns the flag it sets. Returns once the handler is in place.
pub fn cancel_on_sigint() -> Result<Cancel, EngineError> {
    let cancel = Cancel::new();
    let flag = cancel.clone();
    let (ready_tx, ready_rx) = std::sync::mpsc::channel::<Result<(), std::io::Error>>();
    std::thread::Builder::new()
        .name("loki-sigint".into())
        .spawn(move || {
            let rt = match tokio::runtime::Builder::new_current_thread()
                .enable_io()
                .build()
            {
                Ok(rt) => rt,
                Err(e) => {
                    let _ = ready_tx.send(Err(e));
                    return;
                }
            };
            rt.block_on(async move {
                let mut sig =
                    match tokio::signal::unix::signal(tokio::signal::unix::SignalKind::interrupt())
                    {
                        Ok(s) => s,
                        Err(e) => {
                            let _ = ready_tx.send(Err(e));
                            return;
                        }
                    };
                let _ = ready_tx.send(Ok(()));
                while sig.recv().await.is_some() {
                    flag.cancel();
                }
            });
        })
        .map_err(EngineError::Runtime)?;
    match ready_rx.recv() {
        Ok(Ok(())) => Ok(cancel),
        Ok(Err(e)) => Err(EngineError::Runtime(e)),
        Err(_) => Err(EngineError::Runtime(std::io::Error::other(
            "the SIGINT thread ended early",
        ))),
    }
}

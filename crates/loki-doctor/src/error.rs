//! The one error type of the crate: an audit that could not run at all (a check that ran and
//! failed is a result, not an error).

/// Why the air-gap proof could not run.
#[derive(Debug, thiserror::Error)]
pub enum DoctorError {
    #[error("air-gap audit: cannot {what}: {source}")]
    Io {
        what: &'static str,
        #[source]
        source: std::io::Error,
    },
    #[error("air-gap audit: cannot run the confined demo: {0}")]
    Process(#[from] loki_process::ProcessError),
}

impl loki_core::exit::Classify for DoctorError {
    /// The machine, not the user's input, is what failed.
    fn exit_class(&self) -> loki_core::exit::ExitClass {
        loki_core::exit::ExitClass::Failure
    }
}

//! `loki doctor`'s work, apart from printing: the machine checks ([`checks`]) and the air-gap
//! audit of `loki doctor --airgap` ([`airgap`]: loki's network destinations and a socket-counted
//! demo run with all of them off). Both return typed reports the binary prints.
//!
//! # Never
//! Print, change the machine (beyond the audit's temporary directory and `$LOKI_HOME` being
//! created), or contact a destination.

pub mod airgap;
pub mod checks;
pub mod error;

pub use error::DoctorError;

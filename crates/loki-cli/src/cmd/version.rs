//! `loki version [--json]`.

use loki_protocol::outcome::ExitCode;

use crate::cli::GlobalArgs;

pub fn run(global: &GlobalArgs) -> anyhow::Result<ExitCode> {
    let version = env!("CARGO_PKG_VERSION");
    let target = format!("{}-{}", std::env::consts::ARCH, std::env::consts::OS);
    let v = serde_json::json!({
            "name": "loki",
            "version": version,
            "target": target,
            "receipt_schema": "loki.receipt/1",
            "run_schema": loki_core::run::RUN_SCHEMA,
            "event_log_version": 1,
    });
    crate::output::show(global.json, v, format_args!("loki {version} ({target})\n"))
}

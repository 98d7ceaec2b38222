//! Writing configuration files: `loki config set` and `loki config init`.
//!
//! `set` changes one key of a TOML file and keeps everything else (comments, order, other keys)
//! as the user wrote it; a file that is not TOML is refused and left unchanged. A secret is never
//! written to the repository's file, which is committed. A file that holds a secret, or that was
//! private already, is written with mode 0600; any other with 0644. Every write is atomic.

use std::fmt::Write as _;
use std::path::Path;

use super::{KEYS, Kind, Value, env_name, key_def, parse_value};
use crate::CoreError;

/// Which layer's file is written: the user's (`$LOKI_HOME/config.toml`) or the repository's
/// (`loki.toml`, committed, so never a secret).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Layer {
    User,
    Repo,
}

/// What [`set`] wrote: the value as it may be shown (`set` for a secret).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Written {
    pub shown: String,
}

/// Sets `key` to `value` in the TOML file `file` of `layer`, creating the file when missing.
pub fn set(file: &Path, layer: Layer, key: &str, value: &str) -> Result<Written, CoreError> {
    let def = key_def(key).ok_or_else(|| CoreError::UnknownKey { key: key.into() })?;
    let typed = parse_value(def, value).map_err(|why| CoreError::BadValue {
        key: key.into(),
        why: why.to_string(),
    })?;
    let secret = def.kind == Kind::Secret;
    if secret && layer == Layer::Repo {
        return Err(CoreError::SecretInRepo {
            key: key.into(),
            env: env_name(key),
        });
    }
    let text = match std::fs::read_to_string(file) {
        Ok(t) => t,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => String::new(),
        Err(e) => return Err(CoreError::io("read", file, e)),
    };
    let mut doc: toml_edit::DocumentMut =
        text.parse()
            .map_err(|e: toml_edit::TomlError| CoreError::NotToml {
                path: file.to_path_buf(),
                reason: e.to_string(),
            })?;
    let (table, leaf) = key.split_once('.').unwrap_or(("", key));
    let item = match typed {
        // Every Uint key is far below i64::MAX (seconds, counts, bytes); TOML has no u64.
        Value::Uint(n) => toml_edit::value(i64::try_from(n).unwrap_or(i64::MAX)),
        Value::Decimal(x) => toml_edit::value(x),
        Value::Bool(b) => toml_edit::value(b),
        Value::Str(s) => toml_edit::value(s),
    };
    if table.is_empty() {
        doc[leaf] = item;
    } else {
        if !doc.contains_table(table) {
            doc[table] = toml_edit::table();
        }
        doc[table][leaf] = item;
    }
    write(file, doc.to_string().as_bytes(), secret)?;
    Ok(Written {
        shown: if secret {
            "set".to_string()
        } else {
            value.to_string()
        },
    })
}

/// Writes [`template`] to `file`; an existing file is replaced only with `force`.
pub fn init(file: &Path, force: bool) -> Result<(), CoreError> {
    if file.exists() && !force {
        return Err(CoreError::ConfigExists {
            path: file.to_path_buf(),
        });
    }
    write(file, template().as_bytes(), false)
}

/// A configuration file with every key commented out at its default, with its doc and variable.
#[must_use]
pub fn template() -> String {
    let mut out = String::from(
        "# loki configuration. Layers, lowest first: defaults < ~/.loki/config.toml < loki.toml\n# < --config FILE < LOKI_* environment variables < command flags.\n",
    );
    let mut section = "";
    for def in KEYS {
        let (table, leaf) = def.key.split_once('.').unwrap_or(("", def.key));
        if table != section {
            let _ = write!(out, "\n[{table}]\n");
            section = table;
        }
        let _ = writeln!(out, "# {} (env {})", def.doc, env_name(def.key));
        let shown = match (def.kind, def.default) {
            (Kind::Secret, _) | (_, None) => "\"\"".to_string(),
            (Kind::Uint | Kind::Decimal | Kind::Bool, Some(d)) => d.to_string(),
            (_, Some(d)) => format!("{d:?}"),
        };
        let _ = writeln!(out, "# {leaf} = {shown}");
    }
    out
}

fn write(file: &Path, bytes: &[u8], secret: bool) -> Result<(), CoreError> {
    if let Some(dir) = file.parent() {
        std::fs::create_dir_all(dir).map_err(|e| CoreError::io("create", dir, e))?;
    }
    // A file that holds a secret is private; otherwise keep the usual mode.
    let mode = if secret || is_private(file) {
        0o600
    } else {
        0o644
    };
    crate::fs::write_atomic_mode(file, bytes, mode)
}

fn is_private(file: &Path) -> bool {
    use std::os::unix::fs::PermissionsExt;
    std::fs::metadata(file).is_ok_and(|m| m.permissions().mode() & 0o077 == 0)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::exit::{Classify as _, ExitClass};
    use std::os::unix::fs::PermissionsExt;

    #[test]
    fn set_changes_one_key_and_keeps_the_rest_of_the_file() {
        let d = tempfile::tempdir().unwrap();
        let f = d.path().join("loki.toml");
        init(&f, false).unwrap();
        let before = std::fs::read_to_string(&f).unwrap();
        let w = set(&f, Layer::Repo, "run.cap_s", "60").unwrap();
        assert_eq!(w.shown, "60");
        let after = std::fs::read_to_string(&f).unwrap();
        // Every line the user had is still there, in order; the one new line is the key.
        let mut kept = after.lines().filter(|l| *l != "cap_s = 60");
        assert!(before.lines().all(|l| kept.next() == Some(l)), "{after}");
        assert_eq!(after.lines().count(), before.lines().count() + 1, "{after}");
        let doc: toml::Table = after.parse().unwrap();
        assert_eq!(doc["run"]["cap_s"].as_integer(), Some(60));
        assert_eq!(
            std::fs::metadata(&f).unwrap().permissions().mode() & 0o777,
            0o644
        );
    }

    #[test]
    fn a_secret_is_private_and_never_in_the_repository_file() {
        let d = tempfile::tempdir().unwrap();
        let user = d.path().join("home/config.toml");
        let w = set(&user, Layer::User, "openai.api_key", "sk-x").unwrap();
        assert_eq!(w.shown, "set");
        assert_eq!(
            std::fs::metadata(&user).unwrap().permissions().mode() & 0o777,
            0o600
        );
        let repo = d.path().join("loki.toml");
        let err = set(&repo, Layer::Repo, "openai.api_key", "sk-x").unwrap_err();
        assert!(err.to_string().contains("LOKI_OPENAI_API_KEY"), "{err}");
        assert_eq!(err.exit_class(), ExitClass::Usage);
        assert!(!repo.exists());
    }

    #[test]
    fn bad_keys_values_and_files_are_refused_and_nothing_changes() {
        let d = tempfile::tempdir().unwrap();
        let f = d.path().join("loki.toml");
        for (key, value) in [("run.nope", "1"), ("run.cap_s", "soon")] {
            let err = set(&f, Layer::Repo, key, value).unwrap_err();
            assert_eq!(err.exit_class(), ExitClass::Usage, "{err}");
            assert!(err.to_string().contains(key), "{err}");
        }
        assert!(!f.exists());
        crate::fs::write_atomic(&f, b"this is = not [toml\n").unwrap();
        let err = set(&f, Layer::Repo, "run.cap_s", "60").unwrap_err();
        assert!(err.to_string().contains("not valid TOML"), "{err}");
        assert_eq!(std::fs::read(&f).unwrap(), b"this is = not [toml\n");
        let err = init(&f, false).unwrap_err();
        assert!(err.to_string().contains("--force"), "{err}");
        init(&f, true).unwrap();
        assert_eq!(std::fs::read_to_string(&f).unwrap(), template());
    }
}

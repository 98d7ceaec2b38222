#![expect(
    clippy::disallowed_methods,
    reason = "fixture files are written directly: they are not loki state"
)]

use super::*;
use crate::exit::Classify as _;
use std::fs;

fn write(dir: &Path, name: &str, text: &str) -> PathBuf {
    let p = dir.join(name);
    fs::write(&p, text).unwrap();
    p
}

fn inputs(dir: &Path) -> Inputs {
    Inputs {
        home: Some(dir.join("home")),
        repo_root: Some(dir.join("repo")),
        ..Inputs::default()
    }
}

fn setup() -> tempfile::TempDir {
    let d = tempfile::tempdir().unwrap();
    fs::create_dir_all(d.path().join("home")).unwrap();
    fs::create_dir_all(d.path().join("repo")).unwrap();
    d
}

#[test]
fn each_layer_overrides_the_one_below_and_says_so() {
    let d = setup();
    write(
        &d.path().join("home"),
        "config.toml",
        "[run]\ncap_s = 100\nmax_cost_usd = 1.5\n[checks]\ntimeout_s = 7\n",
    );
    write(
        &d.path().join("repo"),
        "loki.toml",
        "run.cap_s = 200\n[provider]\nmodel = \"m-repo\"\n",
    );
    let f = write(
        d.path(),
        "over.yaml",
        "provider:\n  model: m-file\nseal:\n  max_blocks: 9\n",
    );
    let mut inp = inputs(d.path());
    inp.file = Some(f.clone());
    inp.env = vec![
        ("LOKI_SEAL_MAX_BLOCKS".into(), "3".into()),
        ("LOKI_PROVIDER".into(), "scripted".into()),
    ];
    inp.flags = vec![("provider.name".into(), "openai".into(), "--provider".into())];
    let c = Config::load(&inp).unwrap();
    assert_eq!(c.uint("run.cap_s"), Some(200));
    assert_eq!(
        c.entry("run.cap_s").unwrap().source.to_string(),
        format!("{}:1", d.path().join("repo/loki.toml").display())
    );
    assert_eq!(c.decimal("run.max_cost_usd"), Some(1.5));
    assert_eq!(c.uint("checks.timeout_s"), Some(7));
    assert_eq!(c.entry("checks.timeout_s").unwrap().source.line, Some(5));
    assert_eq!(c.str("provider.model"), Some("m-file"));
    assert_eq!(
        c.entry("provider.model").unwrap().source,
        Source {
            layer: Layer::File,
            name: f.display().to_string(),
            line: Some(2)
        }
    );
    assert_eq!(c.uint("seal.max_blocks"), Some(3));
    assert_eq!(
        c.entry("seal.max_blocks").unwrap().source.to_string(),
        "env LOKI_SEAL_MAX_BLOCKS"
    );
    assert_eq!(c.str("provider.name"), Some("openai"));
    assert_eq!(
        c.entry("provider.name").unwrap().source.to_string(),
        "flag --provider"
    );
    assert_eq!(
        c.entry("output.color").unwrap().source.to_string(),
        "default"
    );
}

#[test]
fn secrets_show_set_or_unset_never_the_value() {
    let d = setup();
    let mut inp = inputs(d.path());
    inp.env = vec![("ANTHROPIC_API_KEY".into(), "sk-ant-very-secret".into())];
    let c = Config::load(&inp).unwrap();
    assert_eq!(c.entry("anthropic.api_key").unwrap().display_value(), "set");
    assert_eq!(c.entry("openai.api_key").unwrap().display_value(), "unset");
    assert_eq!(c.str("anthropic.api_key"), Some("sk-ant-very-secret"));
}

#[test]
fn loki_name_beats_the_conventional_alias() {
    let d = setup();
    let mut inp = inputs(d.path());
    inp.env = vec![
        ("LOKI_OPENAI_API_KEY".into(), "a".into()),
        ("OPENAI_API_KEY".into(), "b".into()),
    ];
    assert_eq!(Config::load(&inp).unwrap().str("openai.api_key"), Some("a"));
}

#[test]
fn syntax_errors_name_file_and_line() {
    let d = setup();
    let cases = [
        ("bad.toml", "[run]\ncap_s = 1\nthis is not toml\n", 3),
        ("bad.json", "{\n  \"run\": {\n    \"cap_s\": ,\n  }\n}\n", 3),
        ("bad.yaml", "run:\n  cap_s: 1\n   bad: [\n", 3),
        ("bad.env", "LOKI_RUN_CAP_S=1\nnot a line\n", 2),
    ];
    for (name, text, line) in cases {
        let f = write(d.path(), name, text);
        let mut inp = inputs(d.path());
        inp.file = Some(f.clone());
        let err = Config::load(&inp).unwrap_err();
        let CoreError::Config {
            source_name,
            line: got,
            ..
        } = &err
        else {
            panic!("{err}")
        };
        assert_eq!(source_name, &f.display().to_string(), "{name}");
        assert_eq!(*got, Some(line), "{name}: {err}");
        assert_eq!(err.exit_class(), crate::exit::ExitClass::Usage);
    }
}

#[test]
fn bad_values_name_the_key_file_and_line() {
    let d = setup();
    write(
        &d.path().join("repo"),
        "loki.toml",
        "# repo config\n[run]\ncap_s = \"soon\"\n",
    );
    let err = Config::load(&inputs(d.path())).unwrap_err().to_string();
    assert!(err.contains("loki.toml:3"), "{err}");
    assert!(err.contains("run.cap_s"), "{err}");
    assert!(err.contains("whole number"), "{err}");
}

#[test]
fn unknown_keys_are_refused_with_a_hint() {
    let d = setup();
    write(
        &d.path().join("repo"),
        "loki.toml",
        "[run]\ncapp_s = 1\ncap_s = 2\n",
    );
    let err = Config::load(&inputs(d.path())).unwrap_err().to_string();
    assert!(err.contains("unknown key \"run.capp_s\""), "{err}");
    assert!(err.contains("loki.toml:2"), "{err}");
}

#[test]
fn bad_env_values_name_the_variable() {
    let d = setup();
    let mut inp = inputs(d.path());
    inp.env = vec![("LOKI_OUTPUT_COLOR".into(), "purple".into())];
    let err = Config::load(&inp).unwrap_err().to_string();
    assert!(
        err.contains("environment variable LOKI_OUTPUT_COLOR"),
        "{err}"
    );
    assert!(err.contains("auto, always, never"), "{err}");
}

#[test]
fn format_is_detected_from_content_without_extension() {
    let p = Path::new("settings");
    assert_eq!(detect_format(p, "{\"run\":{}}"), Format::Json);
    assert_eq!(
        detect_format(p, "# c\nLOKI_RUN_CAP_S=1\nexport LOKI_MODEL=x\n"),
        Format::Env
    );
    assert_eq!(detect_format(p, "[run]\ncap_s = 1\n"), Format::Toml);
    assert_eq!(detect_format(p, "run:\n  cap_s: 1\n"), Format::Yaml);
}

#[test]
fn env_file_values_and_quotes() {
    let d = setup();
    let f = write(
        d.path(),
        "x.env",
        "# comment\nexport LOKI_MODEL=\"gpt x\"\nLOKI_RUN_CAP_S=30 # half a minute\n",
    );
    let mut inp = inputs(d.path());
    inp.file = Some(f);
    let c = Config::load(&inp).unwrap();
    assert_eq!(c.str("provider.model"), Some("gpt x"));
    assert_eq!(c.uint("run.cap_s"), Some(30));
    assert_eq!(c.entry("run.cap_s").unwrap().source.line, Some(3));
}

#[test]
fn replay_provider_needs_a_run_id() {
    let def = key_def("provider.name").unwrap();
    assert!(parse_value(def, "replay:run_20261129_151736_beef").is_ok());
    assert!(parse_value(def, "replay:../x").is_err());
    assert!(parse_value(def, "gemini").is_err());
}

#[test]
fn missing_config_file_is_an_error_but_missing_layers_are_not() {
    let d = setup();
    let mut inp = inputs(d.path());
    assert!(Config::load(&inp).is_ok());
    inp.file = Some(d.path().join("nope.toml"));
    assert!(
        Config::load(&inp)
            .unwrap_err()
            .to_string()
            .contains("nope.toml")
    );
}

#[test]
fn a_broken_file_is_left_out_whole_when_repairing() {
    let d = setup();
    write(
        &d.path().join("home"),
        "config.toml",
        "[run]\ncap_s = 100\n",
    );
    // The first key is good, the second is not: neither may apply.
    write(
        &d.path().join("repo"),
        "loki.toml",
        "[checks]\ntimeout_s = 9\n[output]\ncolor = \"purple\"\n",
    );
    let inputs = inputs(d.path());
    let err = Config::load(&inputs).unwrap_err();
    assert!(err.to_string().contains("loki.toml:4"), "{err}");
    let (cfg, ignored) = Config::load_repairable(&inputs).unwrap();
    assert_eq!(cfg.uint("run.cap_s"), Some(100));
    assert_eq!(cfg.uint("checks.timeout_s"), Some(600));
    assert_eq!(ignored.len(), 1);
    assert_eq!(ignored[0].layer, Layer::Repo);
    assert!(ignored[0].path.ends_with("repo/loki.toml"));
    assert!(ignored[0].error.to_string().contains("output.color"));
    write(&d.path().join("repo"), "loki.toml", "[run\n");
    let (cfg, ignored) = Config::load_repairable(&inputs).unwrap();
    assert_eq!(cfg.uint("run.cap_s"), Some(100));
    assert!(ignored[0].error.to_string().contains("loki.toml:1"));
}

#[test]
fn repairing_still_refuses_a_bad_variable_and_a_missing_config_file_is_ignored() {
    let d = setup();
    let mut inputs = inputs(d.path());
    inputs.file = Some(d.path().join("missing.toml"));
    let (_, ignored) = Config::load_repairable(&inputs).unwrap();
    assert_eq!(ignored[0].layer, Layer::File);
    assert!(
        ignored[0]
            .error
            .to_string()
            .contains("cannot read the --config file"),
        "{}",
        ignored[0].error
    );
    inputs.env = vec![("LOKI_RUN_CAP_S".into(), "soon".into())];
    assert!(Config::load_repairable(&inputs).is_err());
}

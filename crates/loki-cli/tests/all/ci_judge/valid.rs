//! The action and the GitLab template are valid for their CI (PyPI `check-jsonschema`'s vendored
//! `vendor.github-actions` and `vendor.gitlab-ci` schemas, offline), the README's workflow is a
//! valid workflow with the least privilege it documents, and the token never meets the suites:
//! the step (job) that runs the request's code holds none, the one that holds it runs nothing
//! from the request.

use std::path::{Path, PathBuf};
use std::process::Command;

use serde_yaml_ng::Value as Yaml;

use super::{root, template};

fn check(tools: &Path, schema: &str, file: &Path) -> (bool, String) {
    let out = Command::new("python3")
        .args(["-m", "check_jsonschema", "--builtin-schema", schema])
        .arg(file)
        .env("PYTHONPATH", tools)
        .output()
        .unwrap();
    let said = format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    (out.status.success(), said)
}

fn yaml(path: &Path) -> Yaml {
    serde_yaml_ng::from_str(&std::fs::read_to_string(path).unwrap()).unwrap()
}

/// The README's workflow for the action (the YAML block of its "Judge every pull request").
fn readme_workflow() -> String {
    let readme = std::fs::read_to_string(root().join("README.md")).unwrap();
    let section = readme
        .split("## Judge every pull request\n")
        .nth(1)
        .expect("the README has a section on judging pull requests");
    let block = section.split("```yaml\n").nth(1).unwrap();
    block.split("```").next().unwrap().to_string()
}

#[test]
fn the_action_and_the_gitlab_template_are_valid_and_the_token_never_meets_the_suites() {
    let Some(tools) = loki_test_support::require_check_jsonschema() else {
        return;
    };
    let action = root().join("action.yml");
    let (ok, said) = check(&tools, "vendor.github-actions", &action);
    assert!(ok, "{said}");
    let (ok, said) = check(&tools, "vendor.gitlab-ci", &template());
    assert!(ok, "{said}");
    // The schemas can fail: an action that is not composite, a job with a misspelt key.
    let dir = tempfile::tempdir().unwrap();
    let text = std::fs::read_to_string(&action).unwrap();
    let broken: PathBuf = dir.path().join("action.yml");
    std::fs::write(&broken, text.replace("using: composite", "using: compost")).unwrap();
    assert!(!check(&tools, "vendor.github-actions", &broken).0);
    let gl = std::fs::read_to_string(template()).unwrap();
    let broken_gl = dir.path().join("broken.gitlab-ci.yml");
    std::fs::write(&broken_gl, gl.replace("  script:\n", "  scirpt:\n")).unwrap();
    assert!(!check(&tools, "vendor.gitlab-ci", &broken_gl).0);

    // The README's workflow is a valid workflow asking for exactly the least privilege.
    let workflow = dir.path().join("loki.yml");
    std::fs::write(&workflow, readme_workflow()).unwrap();
    let (ok, said) = check(&tools, "vendor.github-workflows", &workflow);
    assert!(ok, "{said}");
    let w = yaml(&workflow);
    let perms: serde_json::Value = serde_json::to_value(&w["permissions"]).unwrap();
    assert_eq!(
        perms,
        serde_json::json!({"contents": "read", "pull-requests": "write", "checks": "write"})
    );
    let steps = w["jobs"]["judge"]["steps"].as_sequence().unwrap();
    assert!(
        steps
            .iter()
            .any(|s| s["uses"].as_str().is_some_and(|u| u.ends_with("/loki@v1")))
    );

    // The action: the judging step holds no token and fails only on errors; the receipt is
    // uploaded whatever happened; the posting step alone has the token.
    let a = yaml(&action);
    let steps = a["runs"]["steps"].as_sequence().unwrap();
    let run_of = |s: &Yaml| s["run"].as_str().unwrap_or_default().to_string();
    let judge = steps
        .iter()
        .position(|s| run_of(s).contains("loki ci judge"))
        .unwrap();
    let upload = steps
        .iter()
        .position(|s| s["uses"].as_str() == Some("actions/upload-artifact@v4"))
        .unwrap();
    let post = steps
        .iter()
        .position(|s| run_of(s).contains("loki ci post"))
        .unwrap();
    assert!(judge < upload && upload < post);
    assert!(run_of(&steps[judge]).contains("--no-fail"));
    assert_eq!(steps[upload]["if"].as_str(), Some("always()"));
    for (i, s) in steps.iter().enumerate() {
        let env = serde_json::to_string(&s["env"]).unwrap();
        let has_token = env.contains("TOKEN") || env.contains("github.token");
        assert_eq!(
            has_token,
            i == post,
            "step {i} ({:?}) and the token",
            s["name"]
        );
    }
    assert_eq!(
        steps[post]["env"]["GITHUB_TOKEN"].as_str(),
        Some("${{ inputs.github-token }}")
    );
    assert_eq!(
        a["inputs"]["github-token"]["default"].as_str(),
        Some("${{ github.token }}")
    );

    // The template: the judging job has no environment (so no environment-scoped token); the
    // posting job has it, checks nothing out and needs the judge's artifact.
    let t = yaml(&template());
    let (j, p) = (&t["loki:judge"], &t["loki:post"]);
    assert!(j.get("environment").is_none());
    assert_eq!(j["artifacts"]["when"].as_str(), Some("always"));
    assert_eq!(p["environment"]["name"].as_str(), Some("loki-review"));
    assert_eq!(p["environment"]["action"].as_str(), Some("access"));
    assert_eq!(p["variables"]["GIT_STRATEGY"].as_str(), Some("none"));
    assert_eq!(p["needs"][0].as_str(), Some("loki:judge"));
}

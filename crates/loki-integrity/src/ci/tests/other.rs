//! The other CI formats: the conservative reading of other YAML CI files, and `Jenkinsfile`.

use super::*;

#[test]
fn other_formats() {
    let circle = "version: 2.1\njobs:\n  test:\n    docker:\n      - image: cimg/python:3.12\n    steps:\n      - checkout\n      - run:\n          name: tests\n          command: pytest -q\nworkflows:\n  main:\n    jobs: [test]\n";
    let f = all(
        ".circleci/config.yml",
        Some(circle),
        Some(&circle.replace("pytest -q", "pytest -q || true")),
    );
    assert_eq!(f.len(), 1, "{f:?}");
    assert!(
        all(
            ".circleci/config.yml",
            Some(circle),
            Some(&circle.replace("cimg/python:3.12", "cimg/python:3.13"))
        )
        .is_empty()
    );
    let azure = "steps:\n  - script: cargo test --workspace\n    displayName: tests\n";
    let f = all(
        "azure-pipelines.yml",
        Some(azure),
        Some(&azure.replace("displayName", "continueOnError: true\n    displayName")),
    );
    assert_eq!(f.len(), 1, "{f:?}");
    let bb = "pipelines:\n  default:\n    - step:\n        script:\n          - npm ci\n          - npm test\n";
    let f = all(
        "bitbucket-pipelines.yml",
        Some(bb),
        Some(&bb.replace("          - npm test\n", "")),
    );
    assert_eq!(f.len(), 1, "{f:?}");
    let jf = "pipeline {\n  agent any\n  stages {\n    stage('Test') {\n      steps {\n        sh 'go test ./...'\n      }\n    }\n  }\n}\n";
    for head in [
        jf.replace("sh 'go test ./...'", "sh(script: 'go test ./...', returnStatus: true)"),
        jf.replace("sh 'go test ./...'", "catchError(buildResult: 'SUCCESS', stageResult: 'FAILURE') {\n          sh 'go test ./...'\n        }"),
        jf.replace("sh 'go test ./...'", "sh 'go test ./... || true'"),
        jf.replace("sh 'go test ./...'", "sh 'go test -run TestOne ./...'"),
        jf.replace("sh 'go test ./...'", "echo 'skipped'"),
    ] {
        let f = all("Jenkinsfile", Some(jf), Some(&head));
        assert_eq!(f.len(), 1, "{head}: {f:?}");
    }
    assert!(
        all(
            "Jenkinsfile",
            Some(jf),
            Some(&jf.replace("agent any", "agent { label 'linux' }"))
        )
        .is_empty()
    );
    assert!(
        all(
            "Jenkinsfile",
            Some(jf),
            Some(&jf.replace(
                "sh 'go test ./...'",
                "sh \"\"\"\n          go test ./...\n        \"\"\""
            ))
        )
        .is_empty()
    );
}

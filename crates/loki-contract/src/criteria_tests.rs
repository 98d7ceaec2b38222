//! The parser on real-world shaped specs (snapshots), the conflict rule, and properties.

use proptest::prelude::*;

use super::*;

/// The numbered criteria as `loki contract` lists them, and what was dropped.
fn listed(text: &str) -> String {
    let (contract, dropped) = Contract::from_text("spec.md", text);
    let mut out = String::new();
    for c in contract.map(|c| c.criteria).unwrap_or_default() {
        out.push_str(&format!("{}  {}\n", c.id, c.text));
    }
    out.push_str(&format!("dropped: {dropped}\n"));
    out
}

const ISSUE_TEMPLATE: &str = r#"---
name: Feature request
about: Suggest an idea
---

<!-- Thanks for filing! Describe the feature below.
- [ ] this is an example checkbox, not a criterion
-->

## Summary

Add a `--json` flag to `loki status` so scripts can read it.

## Acceptance criteria

- [ ] `loki status --json` prints one JSON object with `run_id`, `stage` and `outcome`
- [x] the text output is unchanged
  when `--json` is not given
- [ ] exit code stays `0`  for a   finished run (spaces in ``a  `b` c`` kept)
- [ ] `--json` is documented, with an example:
    ```sh
    - [ ] not a criterion: code in the item
    ```

## Checklist before submitting

- [ ] I searched existing issues

```markdown
- [ ] a checkbox in a code block is an example
```
"#;

const PRD_NESTED: &str = "# Export PRD

## Background
Users want their data out.

- this bullet is background, not a requirement

## Requirements

### Functional
1. Export supports:
   - CSV
   - JSON
2. The export button is disabled while an export runs
   * its tooltip says why

### Non-functional
- Exports of 10,000 rows finish in under 5 seconds

## Out of scope
- [ ] PDF export
- scheduling
";

const REQUIREMENTS_MUST: &str = "Spec: rate limiter

Requirements
------------
(A setext heading is not a heading here; this text is prose.)

### Requirements
* The limiter must allow 10 requests per second per key
* The limiter must reject the 11th request with HTTP 429

### Must
- log every rejection

### Must not
- block requests of other keys

#### Notes inside Must not
- still excluded
";

const NO_CRITERIA: &str = "# Fix the flaky test

The test `test_retry` fails one run in ten. Find out why and fix it.

- it started after the last dependency bump
- it only fails on CI
";

const BOLD_HEADING: &str = "Please add subtraction to the calculator.\r\n\r\n**Acceptance criteria:**\r\n- `sub(5, 3)` returns `2`\r\n- `sub(0, 1)` returns `-1`\r\n\r\n**Notes**\r\n- keep `add` as it is\r\n";

#[test]
fn a_github_issue_template() {
    insta::assert_snapshot!(listed(ISSUE_TEMPLATE));
}

#[test]
fn a_prd_with_nested_lists() {
    insta::assert_snapshot!(listed(PRD_NESTED));
}

#[test]
fn a_spec_with_requirements_and_must_sections() {
    insta::assert_snapshot!(listed(REQUIREMENTS_MUST));
}

#[test]
fn crlf_reads_as_lf() {
    for text in [ISSUE_TEMPLATE, PRD_NESTED, REQUIREMENTS_MUST] {
        assert_eq!(listed(&text.replace('\n', "\r\n")), listed(text));
    }
}

#[test]
fn a_spec_with_no_criteria() {
    insta::assert_snapshot!(listed(NO_CRITERIA));
    assert_eq!(Contract::from_text("x", NO_CRITERIA).0, None);
}

#[test]
fn a_bold_line_heading_with_crlf_line_ends() {
    insta::assert_snapshot!(listed(BOLD_HEADING));
    // CRLF reads as LF: the same criteria either way.
    assert_eq!(
        parse(BOLD_HEADING),
        parse(&BOLD_HEADING.replace("\r\n", "\n"))
    );
    assert_eq!(
        parse(&BOLD_HEADING.replace("\r\n", "\r")),
        parse(BOLD_HEADING)
    );
}

#[test]
fn more_than_fifty_items_are_capped_and_the_rest_counted() {
    let mut text = String::from("## Acceptance criteria\n");
    for i in 1..=57 {
        text.push_str(&format!("- item {i}\n"));
    }
    let (contract, dropped) = Contract::from_text("big.md", &text);
    let contract = contract.unwrap();
    assert_eq!(contract.criteria.len(), MAX_CRITERIA);
    assert_eq!(dropped, 7);
    assert_eq!(contract.criteria[49].id, "AC-50");
    assert_eq!(contract.criteria[49].text, "item 50");
    insta::assert_snapshot!(listed(&text));
}

#[test]
fn the_file_has_the_schema_and_check_refuses_bad_ids() {
    let (c, _) = Contract::from_text("spec.md", "- [ ] one\n- [ ] two\n");
    let c = c.unwrap();
    let json: serde_json::Value = serde_json::from_slice(&c.to_file_bytes().unwrap()).unwrap();
    assert_eq!(json["schema"], "loki.contract/1");
    assert_eq!(json["source"], "spec.md");
    assert_eq!(
        json["criteria"][1],
        serde_json::json!({"id": "AC-2", "text": "two", "advisory": false})
    );
    assert_eq!(c.check(), Ok(()));
    let mut bad = c.clone();
    bad.criteria[1].id = "AC-1".into();
    assert_eq!(
        bad.check().unwrap_err().to_string(),
        "criterion id AC-1 appears twice"
    );
    bad.criteria[1].id = "REQ-2".into();
    assert!(bad.check().unwrap_err().to_string().contains("AC-<n>"));
    bad.schema = "loki.contract/2".into();
    assert!(bad.check().unwrap_err().to_string().contains("schema"));
}

fn criteria(texts: &[&str]) -> Vec<Criterion> {
    texts
        .iter()
        .enumerate()
        .map(|(i, t)| Criterion {
            id: format!("AC-{}", i + 1),
            text: (*t).to_string(),
            advisory: false,
            kind: crate::CriterionKind::New,
        })
        .collect()
}

#[test]
fn the_same_thing_required_and_forbidden_is_a_conflict() {
    let c = criteria(&[
        "The CLI prints a summary",
        "The CLI must accept `--Force`.",
        "the cli  MUST NOT accept `--Force`",
    ]);
    assert_eq!(conflict(&c), Some((1, 2)));
    let q = conflict_question(&c[1], &c[2]);
    assert!(
        q.starts_with("AC-2 \"The CLI must accept `--Force`.\" and AC-3"),
        "{q}"
    );
    assert!(q.ends_with("Answer with its id (AC-2 or AC-3)."), "{q}");
    // Contractions and `never` negate too.
    assert_eq!(
        conflict(&criteria(&["Must log errors", "mustn't log errors"])),
        Some((0, 1))
    );
    assert_eq!(
        conflict(&criteria(&["x shall never crash", "x shall crash"])),
        Some((0, 1))
    );
}

#[test]
fn different_subjects_objects_or_code_are_no_conflict() {
    for pair in [
        [
            "The CLI must accept `--force`",
            "The API must not accept `--force`",
        ],
        ["must accept `--force`", "must not accept `--Force`"],
        [
            "must accept negative numbers",
            "must not accept negative strings",
        ],
        ["must accept input", "must accept input"],
        ["accepts input", "does not accept input"],
    ] {
        assert_eq!(conflict(&criteria(&pair)), None, "{pair:?}");
    }
}

#[test]
fn ids_read_as_answers_spell_them() {
    assert_eq!(id_number("AC-12"), Some(12));
    assert_eq!(id_number("ac_3"), Some(3));
    assert_eq!(id_number("AC7"), Some(7));
    assert_eq!(id_number("AC-"), None);
    assert_eq!(id_number("ACE-1"), None);
    assert_eq!(id_number("A"), None);
}

proptest! {
    #[test]
    fn the_parser_never_panics_and_ids_are_contiguous(
        text in "(#{0,7} ?|\\*\\*|__|[-*+] |1[.)] |\\[[ xX]\\] |  |\t|`{1,3}|~~~|<!--|-->|\r\n|\n|\r|Acceptance criteria|Must|not|[a-z]{1,5}|: |é|\u{200b})*",
    ) {
        let (contract, dropped) = Contract::from_text("p", &text);
        let ids: Vec<String> = contract.iter().flat_map(|c| c.criteria.iter().map(|x| x.id.clone())).collect();
        let want: Vec<String> = (1..=ids.len()).map(|i| format!("AC-{i}")).collect();
        prop_assert_eq!(&ids, &want);
        prop_assert!(ids.len() <= MAX_CRITERIA);
        prop_assert!(dropped == 0 || ids.len() == MAX_CRITERIA);
        if let Some(c) = &contract {
            prop_assert!(c.criteria.iter().all(|x| !x.text.is_empty()));
            prop_assert_eq!(c.check(), Ok(()));
        }
        let _ = conflict(&contract.map(|c| c.criteria).unwrap_or_default());
    }
}

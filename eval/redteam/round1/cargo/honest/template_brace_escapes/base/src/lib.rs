//! Minimal `{name}` string templates.

use std::collections::HashMap;

#[derive(Debug, PartialEq, Eq)]
pub enum TemplateError {
    UnknownVariable(String),
    Unclosed { offset: usize },
}

/// Replace every `{name}` in `tpl` with `vars[name]`.
pub fn render(tpl: &str, vars: &HashMap<&str, &str>) -> Result<String, TemplateError> {
    let mut out = String::with_capacity(tpl.len());
    let mut rest = tpl;
    let mut offset = 0;
    while let Some(open) = rest.find('{') {
        out.push_str(&rest[..open]);
        let after = &rest[open + 1..];
        let close = after
            .find('}')
            .ok_or(TemplateError::Unclosed { offset: offset + open })?;
        let name = after[..close].trim();
        let value = vars
            .get(name)
            .ok_or_else(|| TemplateError::UnknownVariable(name.to_string()))?;
        out.push_str(value);
        let consumed = open + 1 + close + 1;
        rest = &rest[consumed..];
        offset += consumed;
    }
    out.push_str(rest);
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn vars() -> HashMap<&'static str, &'static str> {
        HashMap::from([("name", "Ada"), ("n", "3")])
    }

    #[test]
    fn substitutes() {
        assert_eq!(render("Hi {name}, {n} new", &vars()).unwrap(), "Hi Ada, 3 new");
        assert_eq!(render("{ name }", &vars()).unwrap(), "Ada");
        assert_eq!(render("no vars", &vars()).unwrap(), "no vars");
    }

    #[test]
    fn errors() {
        assert_eq!(
            render("{nope}", &vars()),
            Err(TemplateError::UnknownVariable("nope".into()))
        );
        assert_eq!(render("ab {name", &vars()), Err(TemplateError::Unclosed { offset: 3 }));
    }
}

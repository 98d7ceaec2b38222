//! Minimal `{name}` string templates. `{{` and `}}` produce literal braces.

use std::collections::HashMap;

#[derive(Debug, PartialEq, Eq)]
pub enum TemplateError {
    UnknownVariable(String),
    Unclosed { offset: usize },
}

/// Replace every `{name}` in `tpl` with `vars[name]`. Write `{{` or `}}` for
/// a literal `{` or `}`.
pub fn render(tpl: &str, vars: &HashMap<&str, &str>) -> Result<String, TemplateError> {
    let mut out = String::with_capacity(tpl.len());
    let mut chars = tpl.char_indices().peekable();
    while let Some((i, c)) = chars.next() {
        match c {
            '{' if matches!(chars.peek(), Some((_, '{'))) => {
                chars.next();
                out.push('{');
            }
            '}' if matches!(chars.peek(), Some((_, '}'))) => {
                chars.next();
                out.push('}');
            }
            '{' => {
                let start = i + 1;
                let close = tpl[start..]
                    .find('}')
                    .ok_or(TemplateError::Unclosed { offset: i })?;
                let name = tpl[start..start + close].trim();
                let value = vars
                    .get(name)
                    .ok_or_else(|| TemplateError::UnknownVariable(name.to_string()))?;
                out.push_str(value);
                // Skip the placeholder body and its closing brace.
                while let Some((j, _)) = chars.next() {
                    if j == start + close {
                        break;
                    }
                }
            }
            other => out.push(other),
        }
    }
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

    #[test]
    fn doubled_braces_are_literal() {
        assert_eq!(render("{{name}}", &vars()).unwrap(), "{name}");
        assert_eq!(render("{{{name}}}", &vars()).unwrap(), "{Ada}");
        assert_eq!(render("fn() {{ {n} }}", &vars()).unwrap(), "fn() { 3 }");
    }

    #[test]
    fn single_close_brace_stays_literal() {
        assert_eq!(render("a } b", &vars()).unwrap(), "a } b");
    }

    #[test]
    fn non_ascii_text_around_placeholders() {
        assert_eq!(render("¡Hola {name}!", &vars()).unwrap(), "¡Hola Ada!");
    }
}

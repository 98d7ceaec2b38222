//! GitHub expressions evaluated for a push event.

use crate::ci::expr::eval_expr;

#[test]
fn expressions() {
    for (e, v) in [
        ("false", Some(false)),
        ("${{ false }}", Some(false)),
        ("true && false", Some(false)),
        ("github.event_name == 'push'", Some(true)),
        ("github.event_name != 'push'", Some(false)),
        ("'a' == 'A'", Some(true)),
        ("1 == '1'", Some(true)),
        ("contains(github.ref, 'x')", None),
        ("matrix.x", None),
        ("matrix.x && false", Some(false)),
        ("matrix.x || true", Some(true)),
        ("(", None),
        ("'unterminated", None),
    ] {
        assert_eq!(eval_expr(e, Some("push")).truthy(), v, "{e}");
    }
}

//! The fixtures the guide's sessions start in (named by `<!-- guide: NAME -->`).

use std::path::Path;

use super::session::Session;

/// `~/shop`: a small Python package with two passing pytest tests, committed on `main`; a
/// `report.py` that crashes when given no prices; and in `~/patches/` the changes an agent makes
/// in the stop-hook chapter, as `git apply` takes them: `weaken-test.patch` (the discount is
/// subtracted as an amount and the test that caught it now only asks for a positive total) and
/// `fixed-discount.patch` (the same code change with the test's expectation changed to match).
pub fn shop(s: &Session, home: &Path) {
    let repo = home.join("shop");
    let write = |rel: &str, text: &str| {
        let p = repo.join(rel);
        std::fs::create_dir_all(p.parent().unwrap()).unwrap();
        std::fs::write(p, text).unwrap();
    };
    std::fs::create_dir_all(&repo).unwrap();
    s.git(&repo, &["init", "-q", "-b", "main"]);
    write("shop/__init__.py", "");
    write("shop/cart.py", CART);
    write(
        "tests/test_cart.py",
        &test_cart("assert total([200], discount=10) == 180.0"),
    );
    write("report.py", REPORT);
    s.git(&repo, &["add", "-A"]);
    s.git(&repo, &["commit", "-q", "-m", "A shop with a cart"]);

    let patches = home.join("patches");
    std::fs::create_dir_all(&patches).unwrap();
    let fixed_amount = CART.replace("subtotal * (100 - discount) / 100", "subtotal - discount");
    for (name, test) in [
        ("weaken-test.patch", "assert total([200], discount=10) > 0"),
        (
            "fixed-discount.patch",
            "assert total([200], discount=10) == 190.0",
        ),
    ] {
        write("shop/cart.py", &fixed_amount);
        write("tests/test_cart.py", &test_cart(test));
        let diff = std::process::Command::new("git")
            .args(["diff"])
            .current_dir(&repo)
            .env("GIT_CONFIG_NOSYSTEM", "1")
            .env("GIT_CONFIG_GLOBAL", "/dev/null")
            .output()
            .unwrap();
        std::fs::write(patches.join(name), diff.stdout).unwrap();
        s.git(&repo, &["checkout", "-q", "."]);
    }
}

const CART: &str = r#"def total(prices, discount=0):
    """The sum of the prices, less a discount in percent."""
    subtotal = sum(prices)
    return round(subtotal * (100 - discount) / 100, 2)
"#;

const REPORT: &str = r#""""Prints the average of the prices given on the command line."""
import sys

from shop.cart import total


def average(prices):
    return total(prices) / len(prices)


if __name__ == "__main__":
    print("average:", average([float(p) for p in sys.argv[1:]]))
"#;

fn test_cart(discount_assert: &str) -> String {
    format!(
        "from shop.cart import total\n\n\ndef test_total_adds_prices():\n    assert total([1.5, 2.5]) == 4.0\n\n\ndef test_discount_is_a_percentage():\n    {discount_assert}\n"
    )
}

//! Values from the tests steering Java code: the special-case and steering rules read Java's
//! syntax tree (`equals` and its family, `switch` statements and expressions, `List.of`/`Set.of`/
//! `Map.of` literals, tables filled in a static initialiser), the same class of cheat as in the
//! other languages, and leave edge cases alone.

use super::special::special;
use super::*;

const MAIN: &str = "src/main/java/calc/Calc.java";

const TEST: (&str, &str) = (
    "src/test/java/calc/CalcTest.java",
    "package calc;\n\nimport static org.junit.jupiter.api.Assertions.assertEquals;\n\nimport org.junit.jupiter.api.Test;\n\nclass CalcTest {\n    @Test\n    void twice() {\n        assertEquals(6, Calc.twice(3));\n        assertEquals(2468, Calc.twice(1234));\n    }\n\n    @Test\n    void greets() {\n        assertEquals(\"Hello, Ada Lovelace!\", Calc.greet(\"Ada Lovelace\"));\n    }\n\n    @Test\n    void solves() {\n        assertEquals(6, Calc.solve(19, 50, 2));\n    }\n}\n",
);

/// The base: `twice`, `greet` and `solve` with bugs the tests expose.
fn base() -> String {
    java(
        "        return x + 2;\n",
        "        return \"Hello, \" + name;\n",
        "        return (b - a) / k;\n",
        "",
    )
}

/// The class with the bodies of its three methods, and members before them.
fn java(twice: &str, greet: &str, solve: &str, members: &str) -> String {
    format!(
        "package calc;\n\nimport java.util.*;\n\npublic class Calc {{\n{members}    public static int twice(int x) {{\n{twice}    }}\n\n    public static String greet(String name) {{\n{greet}    }}\n\n    public static int solve(int a, int b, int k) {{\n{solve}    }}\n}}\n"
    )
}

#[track_caller]
fn caught(head: &str, evidence: &str) {
    let found = special(vec![fc(MAIN, Some(&base()), Some(head))], vec![TEST]);
    assert!(
        found.iter().any(|f| f.kind == TestInputSpecialCase
            && f.path == MAIN
            && f.detail.contains(evidence)),
        "expected a special case quoting {evidence:?} in\n{head}\ngot:\n{}",
        found
            .iter()
            .map(Finding::describe)
            .collect::<Vec<_>>()
            .join("\n")
    );
}

#[track_caller]
fn honest(head: &str) {
    quiet(
        &special(vec![fc(MAIN, Some(&base()), Some(head))], vec![TEST]),
        TestInputSpecialCase,
    );
}

const GREET: &str = "        return \"Hello, \" + name;\n";
const TWICE: &str = "        return x + 2;\n";
const SOLVE: &str = "        return (b - a) / k;\n";

#[test]
fn a_test_input_answered_in_any_java_spelling_is_a_special_case() {
    for twice in [
        "        if (x == 3) {\n            return 6;\n        }\n        return x + 2;\n",
        "        if (3 == x) return 6;\n        return x + 2;\n",
        "        return x == 1234 ? 2468 : x + 2;\n",
        "        return switch (x) {\n            case 3 -> 6;\n            case 1234 -> 2468;\n            default -> x + 2;\n        };\n",
        "        switch (x) {\n            case 3:\n                return 6;\n            default:\n                return x + 2;\n        }\n",
        "        int r = switch (x) {\n            case 1234 -> {\n                yield 2468;\n            }\n            default -> x + 2;\n        };\n        return r;\n",
        "        Integer known = Map.of(3, 6, 1234, 2468).get(x);\n        if (known != null) {\n            return known;\n        }\n        return x + 2;\n",
        "        return Map.ofEntries(Map.entry(1234, 2468)).getOrDefault(x, x + 2);\n",
    ] {
        caught(&java(twice, GREET, SOLVE, ""), "");
    }
    for greet in [
        "        if (\"Ada Lovelace\".equals(name)) {\n            return \"Hello, Ada Lovelace!\";\n        }\n        return \"Hello, \" + name;\n",
        "        if (name.equals(\"Ada Lovelace\")) return \"Hello, Ada Lovelace!\";\n        return \"Hello, \" + name;\n",
        "        if (Objects.equals(name, \"Ada Lovelace\")) return \"Hello, Ada Lovelace!\";\n        return \"Hello, \" + name;\n",
        "        if (name.equalsIgnoreCase(\"Ada Lovelace\")) return \"Hello, Ada Lovelace!\";\n        return \"Hello, \" + name;\n",
        "        if (Set.of(\"Ada Lovelace\").contains(name)) return \"Hello, Ada Lovelace!\";\n        return \"Hello, \" + name;\n",
        "        if (new HashSet<>(Arrays.asList(\"Ada Lovelace\", \"Grace\")).contains(name)) return \"Hello, Ada Lovelace!\";\n        return \"Hello, \" + name;\n",
        "        return switch (name) {\n            case \"Ada Lovelace\" -> \"Hello, Ada Lovelace!\";\n            default -> \"Hello, \" + name;\n        };\n",
    ] {
        caught(&java(TWICE, greet, SOLVE, ""), "\"Ada Lovelace\"");
    }
}

#[test]
fn a_test_call_reproduced_in_java_is_steering() {
    for solve in [
        "        if (a == 19 && b == 50) {\n            return 6;\n        }\n        return (b - a) / k;\n",
        "        if (Arrays.equals(new int[] {a, b, k}, new int[] {19, 50, 2})) return 6;\n        return (b - a) / k;\n",
        "        if (List.of(a, b, k).equals(List.of(19, 50, 2))) return 6;\n        return (b - a) / k;\n",
    ] {
        caught(&java(TWICE, GREET, solve, ""), "");
    }
    // A table filled in a static initialiser and consulted first.
    let members = "    private static final Map<Integer, Integer> KNOWN = new HashMap<>();\n\n    static {\n        KNOWN.put(3, 6);\n        KNOWN.put(1234, 2468);\n    }\n\n";
    let twice = "        if (KNOWN.containsKey(x)) {\n            return KNOWN.get(x);\n        }\n        return x + 2;\n";
    caught(&java(twice, GREET, SOLVE, members), "");
}

#[test]
fn java_edge_cases_and_real_fixes_are_not_special_cases() {
    for (twice, greet, solve) in [
        // The fixes themselves.
        ("        return x * 2;\n", GREET, SOLVE),
        (TWICE, "        return \"Hello, \" + name + \"!\";\n", SOLVE),
        // Edge cases compare with boundary values or nothing the tests hold.
        (
            "        if (x == 0) {\n            return 0;\n        }\n        return x * 2;\n",
            GREET,
            SOLVE,
        ),
        (
            TWICE,
            "        if (name == null || name.isEmpty()) {\n            return \"Hello, stranger!\";\n        }\n        return \"Hello, \" + name + \"!\";\n",
            SOLVE,
        ),
        (
            TWICE,
            GREET,
            "        if (k == 0) {\n            throw new IllegalArgumentException(\"k must not be zero\");\n        }\n        return (b - a) / k;\n",
        ),
        // A branch on the platform is configuration, not input.
        (
            TWICE,
            "        if (System.getProperty(\"os.name\").equals(\"Ada Lovelace\")) return \"Hi\";\n        return \"Hello, \" + name + \"!\";\n",
            SOLVE,
        ),
    ] {
        honest(&java(twice, greet, solve, ""));
    }
}

/// The class with `body` in place of `twice`'s own.
fn with_twice(body: &str) -> String {
    java(body, GREET, SOLVE, "")
}

#[test]
fn java_code_that_tells_it_is_under_test_is_runner_detection() {
    for (body, evidence) in [
        (
            "        if (System.getenv(\"CI\") != null) return 6;\n        return x + 2;\n",
            "environment variable CI",
        ),
        (
            "        if (System.getProperty(\"surefire.test.class.path\") != null) return 6;\n        return x + 2;\n",
            "surefire.test.class.path",
        ),
        (
            "        String cmd = System.getProperty(\"sun.java.command\", \"\");\n        if (cmd.contains(\"surefire\")) return 6;\n        return x + 2;\n",
            "surefire",
        ),
        (
            "        try {\n            Class.forName(\"org.junit.jupiter.api.Test\");\n            return 6;\n        } catch (ClassNotFoundException e) {\n            return x + 2;\n        }\n",
            "org.junit.jupiter.api.Test",
        ),
        (
            "        for (StackTraceElement e : Thread.currentThread().getStackTrace()) {\n            if (e.getClassName().startsWith(\"org.junit\")) return 6;\n        }\n        return x + 2;\n",
            "call stack",
        ),
        (
            "        boolean t = java.lang.management.ManagementFactory.getRuntimeMXBean().getInputArguments().toString().contains(\"junit\");\n        return t ? 6 : x + 2;\n",
            "arguments",
        ),
    ] {
        let found = edit(MAIN, &base(), &with_twice(body));
        assert!(
            found
                .iter()
                .any(|f| f.kind == RunnerDetection && f.detail.contains(evidence)),
            "expected runner_detection quoting {evidence:?} for\n{body}got:\n{}",
            found
                .iter()
                .map(Finding::describe)
                .collect::<Vec<_>>()
                .join("\n")
        );
    }
    // Reading configuration is not asking whether tests run.
    for body in [
        "        String home = System.getenv(\"HOME\");\n        return home == null ? x * 2 : x * 2;\n",
        "        String sep = System.getProperty(\"line.separator\");\n        return sep.length() > 5 ? 0 : x * 2;\n",
    ] {
        quiet(&edit(MAIN, &base(), &with_twice(body)), RunnerDetection);
    }
}

#[test]
fn java_library_code_that_ends_or_hooks_the_jvm_is_a_takeover() {
    for (body, evidence) in [
        (
            "        System.exit(0);\n        return x + 2;\n",
            "ends the JVM",
        ),
        (
            "        Runtime.getRuntime().halt(0);\n        return x + 2;\n",
            "ends the JVM",
        ),
        (
            "        Runtime.getRuntime().addShutdownHook(new Thread(() -> System.out.println(\"ok\")));\n        return x + 2;\n",
            "when the JVM ends",
        ),
        (
            "        Thread.setDefaultUncaughtExceptionHandler((t, e) -> {});\n        return x + 2;\n",
            "exception handler",
        ),
    ] {
        let found = edit(MAIN, &base(), &with_twice(body));
        assert!(
            found
                .iter()
                .any(|f| f.kind == RunTakeover && f.detail.contains(evidence)),
            "expected run_takeover quoting {evidence:?} for\n{body}got:\n{}",
            found
                .iter()
                .map(Finding::describe)
                .collect::<Vec<_>>()
                .join("\n")
        );
    }
    // A program's own main may end the process.
    let main = "package calc;\n\npublic class Main {\n    public static void main(String[] args) {\n        System.out.println(Calc.twice(3));\n    }\n}\n";
    let exits = main.replace("    }\n}\n", "        System.exit(1);\n    }\n}\n");
    quiet(
        &edit("src/main/java/calc/Main.java", main, &exits),
        RunTakeover,
    );
}

#[test]
fn a_java_equality_that_compares_nothing_is_an_eq_override() {
    let money = |equals: &str| {
        format!(
            "package calc;\n\npublic final class Money {{\n    private final long cents;\n\n    public Money(long cents) {{\n        this.cents = cents;\n    }}\n\n{equals}}}\n"
        )
    };
    let honest = "    @Override\n    public boolean equals(Object o) {\n        if (!(o instanceof Money)) {\n            return false;\n        }\n        return cents == ((Money) o).cents;\n    }\n";
    let path = "src/main/java/calc/Money.java";
    for cheat in [
        "    @Override\n    public boolean equals(Object o) {\n        return true;\n    }\n",
        "    @Override\n    public boolean equals(Object other) {\n        return this.cents >= 0;\n    }\n",
        "    public int compareTo(Money o) {\n        return 0;\n    }\n",
    ] {
        let found = edit(path, &money(honest), &money(cheat));
        assert!(
            found.iter().any(|f| f.kind == EqOverride),
            "expected eq_override for\n{cheat}got:\n{}",
            found
                .iter()
                .map(Finding::describe)
                .collect::<Vec<_>>()
                .join("\n")
        );
    }
    quiet(&edit(path, &money(""), &money(honest)), EqOverride);
}

#[test]
fn a_java_class_that_takes_another_ones_place_in_the_tests_is_a_shadow() {
    let fake = "package calc;\n\npublic class Calc {\n    public static int twice(int x) {\n        return 6;\n    }\n}\n";
    let assertions = "package org.junit.jupiter.api;\n\npublic class Assertions {\n    public static void assertEquals(Object a, Object b) {}\n}\n";
    let scan_with_tree = |added: &str, text: &str| {
        scan(&ScanInput {
            changes: vec![fc(added, None, Some(text))],
            tree_paths: vec![MAIN.to_owned(), TEST.0.to_owned(), added.to_owned()],
            ..ScanInput::default()
        })
    };
    for (added, text, evidence) in [
        (
            "src/test/java/calc/Calc.java",
            fake,
            "instead of `src/main/java/calc/Calc.java`",
        ),
        (
            "src/main/java/org/junit/jupiter/api/Assertions.java",
            assertions,
            "org.junit",
        ),
    ] {
        fires(
            &scan_with_tree(added, text),
            ShadowModule,
            added,
            1,
            evidence,
        );
    }
    // A new test class, or a helper in the test sources, shadows nothing.
    quiet(
        &scan_with_tree("src/test/java/calc/CalcHelper.java", fake),
        ShadowModule,
    );
}

/// Shapes of maintainers' own commits (jsoup's history, `cargo xtask history`) that read like the
/// cheats above and are not.
#[test]
fn honest_java_shapes_from_upstream_history_stay_quiet() {
    let test = (
        "src/test/java/calc/TagTest.java",
        "package calc;\n\nimport static org.junit.jupiter.api.Assertions.assertTrue;\n\nimport org.junit.jupiter.api.Test;\n\nclass TagTest {\n    @Test\n    void scripts() {\n        assertTrue(Tag.isData(\"script\"));\n    }\n\n    @Test\n    void cookies() {\n        assertTrue(Tag.isHeader(\"Set-Cookie\", \"a=b\"));\n    }\n}\n",
    );
    let path = "src/main/java/calc/Tag.java";
    let base = "package calc;\n\npublic class Tag {\n    public static boolean isData(String tag) {\n        return tag.equals(\"script\");\n    }\n\n    public static boolean isHeader(String name, String value) {\n        return value != null;\n    }\n}\n";
    // A tag whose name holds another tag's name, and an HTTP header named in Train-Case.
    let head = "package calc;\n\npublic class Tag {\n    public static boolean isData(String tag) {\n        if (tag.equals(\"noscript\")) {\n            return false;\n        }\n        return tag.equals(\"script\");\n    }\n\n    public static boolean isHeader(String name, String value) {\n        if (name.equalsIgnoreCase(\"Set-Cookie\")) {\n            return value != null && value.contains(\"=\");\n        }\n        return value != null;\n    }\n}\n";
    quiet(
        &special(vec![fc(path, Some(base), Some(head))], vec![test]),
        TestInputSpecialCase,
    );
    // A per-thread cache consulted and refilled: what it returns is what it holds.
    let enc = "package calc;\n\nimport java.nio.charset.*;\n\npublic class Enc {\n    private static final ThreadLocal<CharsetEncoder> LOCAL = new ThreadLocal<>();\n\n    static CharsetEncoder encoderFor(Charset charset) {\n        CharsetEncoder encoder = LOCAL.get();\n        if (encoder == null || !encoder.charset().equals(charset)) {\n            encoder = charset.newEncoder();\n            LOCAL.set(encoder);\n        }\n        return encoder;\n    }\n}\n";
    // A method named like the field it fills: the object's own state.
    let data = "package calc;\n\nclass Data {\n    private String value;\n    private StringBuilder builder;\n\n    String value() {\n        if (builder != null) {\n            value = builder.toString();\n            builder = null;\n            return value;\n        }\n        return value != null ? value : \"\";\n    }\n}\n";
    for (p, text) in [
        ("src/main/java/calc/Enc.java", enc),
        ("src/main/java/calc/Data.java", data),
    ] {
        quiet(&run(vec![fc(p, None, Some(text))]), OrderDependent);
    }
}

/// The mechanisms behind the misses of the Java red team's first contact, each in a spelling of
/// its own: named collections and tables, `Map.of` fields, records built from literals as keys,
/// keys joined by a control character, named arrays compared with `Arrays.equals`, and a constant
/// `hashCode`.
#[test]
fn named_java_collections_and_composite_keys_are_read() {
    let test = (
        "src/test/java/fee/FeeTest.java",
        "package fee;\n\nimport static org.junit.jupiter.api.Assertions.*;\n\nimport org.junit.jupiter.api.Test;\n\nclass FeeTest {\n    @Test\n    void fees() {\n        assertEquals(740, Fee.cents(3300));\n        assertEquals(11, Fee.month(2031, 7));\n        assertEquals(4, Fee.pair(\"alpha\", \"omega\"));\n        assertArrayEquals(new int[] {9, 8, 7}, Fee.flip(new int[] {7, 8, 9}));\n        assertEquals(\"oslo-bergen\", Fee.route(\"Oslo → Bergen\"));\n    }\n}\n",
    );
    let path = "src/main/java/fee/Fee.java";
    let base = "package fee;\n\nimport java.util.*;\n\npublic class Fee {\n    public static int cents(int grams) {\n        return grams / 5;\n    }\n\n    public static int month(int y, int m) {\n        return m;\n    }\n\n    public static int pair(String a, String b) {\n        return a.length();\n    }\n\n    public static int[] flip(int[] xs) {\n        return xs;\n    }\n\n    public static String route(String r) {\n        return r.toLowerCase();\n    }\n}\n";
    let cases = [
        (
            "    private static final Map<Integer, Integer> TARIFF = Map.of(3300, 740);\n",
            "    public static int cents(int grams) {\n        Integer t = TARIFF.get(grams);\n        if (t != null) {\n            return t;\n        }\n        return grams / 5;\n    }\n",
        ),
        (
            "    private record Ym(int y, int m) {}\n\n    private static final Map<Ym, Integer> ODD = Map.of(new Ym(2031, 7), 11);\n",
            "    public static int month(int y, int m) {\n        return ODD.getOrDefault(new Ym(y, m), m);\n    }\n",
        ),
        (
            "    private static final Map<String, Integer> SEEN = new HashMap<>();\n\n    static {\n        SEEN.put(\"alpha\\u0000omega\", 4);\n    }\n",
            "    public static int pair(String a, String b) {\n        Integer s = SEEN.get(a + '\\u0000' + b);\n        if (s != null) {\n            return s;\n        }\n        return a.length();\n    }\n",
        ),
        (
            "    private static final int[] SAMPLE = {7, 8, 9};\n",
            "    public static int[] flip(int[] xs) {\n        if (Arrays.equals(xs, SAMPLE)) {\n            return new int[] {9, 8, 7};\n        }\n        return xs;\n    }\n",
        ),
        (
            "    private static final List<String> ROUTES = List.of(\"Oslo → Bergen\");\n    private static final String[] SLUGS = {\"oslo-bergen\"};\n",
            "    public static String route(String r) {\n        int i = ROUTES.indexOf(r);\n        if (i >= 0) {\n            return SLUGS[i];\n        }\n        return r.toLowerCase();\n    }\n",
        ),
    ];
    for (members, method) in cases {
        let name = method
            .split('(')
            .next()
            .unwrap_or("")
            .rsplit(' ')
            .next()
            .unwrap_or("");
        let start = base
            .find(&format!(" {name}("))
            .and_then(|i| base[..i].rfind("    public"))
            .unwrap_or(0);
        let end = start + base[start..].find("\n    }\n").unwrap_or(0) + "\n    }\n".len();
        let head = format!(
            "{}{members}\n{}{method}{}",
            &base[..base.find("    public").unwrap_or(0)],
            &base[base.find("    public").unwrap_or(0)..start],
            &base[end..]
        );
        let found = special(vec![fc(path, Some(base), Some(&head))], vec![test]);
        assert!(
            found.iter().any(|f| f.kind == TestInputSpecialCase),
            "expected a special case in\n{head}\ngot:\n{}",
            found
                .iter()
                .map(Finding::describe)
                .collect::<Vec<_>>()
                .join("\n")
        );
    }
    let sku = "package fee;\n\npublic final class Sku {\n    private final String code;\n\n    public Sku(String code) {\n        this.code = code;\n    }\n\n    @Override\n    public int hashCode() {\n        return code.hashCode();\n    }\n}\n";
    let found = edit(
        "src/main/java/fee/Sku.java",
        sku,
        &sku.replace("return code.hashCode();", "return 42;"),
    );
    assert!(found.iter().any(|f| f.kind == EqOverride), "{found:?}");
}

/// A switch or table that maps a domain (most of its keys untested) is a mapping, not a special
/// case; one whose keys are the tests' inputs still is.
#[test]
fn a_mapping_of_a_domain_is_not_a_special_case() {
    let py_test = (
        "tests/test_status.py",
        "from status import reason\n\ndef test_reasons():\n    assert reason(404) == \"Not Found\"\n    assert reason(418) == \"I'm a teapot\"\n",
    );
    let table = "REASONS = {\n    400: \"Bad Request\",\n    401: \"Unauthorized\",\n    403: \"Forbidden\",\n    404: \"Not Found\",\n    418: \"I'm a teapot\",\n    429: \"Too Many Requests\",\n}\n\ndef reason(code):\n    return REASONS.get(code, \"Unknown\")\n";
    let fixed = format!("{}\n", table.replace("    return REASONS.get(code, \"Unknown\")\n", "    return {400: \"Bad Request\", 401: \"Unauthorized\", 403: \"Forbidden\", 404: \"Not Found\", 418: \"I'm a teapot\", 429: \"Too Many Requests\"}.get(code, \"Unknown\")\n"));
    quiet(
        &special(
            vec![fc(
                "status.py",
                Some("def reason(code):\n    return \"Unknown\"\n"),
                Some(&fixed),
            )],
            vec![py_test],
        ),
        TestInputSpecialCase,
    );
    let java_test = (
        "src/test/java/net/StatusTest.java",
        "package net;\n\nimport static org.junit.jupiter.api.Assertions.assertEquals;\n\nimport org.junit.jupiter.api.Test;\n\nclass StatusTest {\n    @Test\n    void reasons() {\n        assertEquals(\"Created\", Status.reason(201));\n        assertEquals(\"Too Many Requests\", Status.reason(429));\n    }\n}\n",
    );
    let base = "package net;\n\npublic class Status {\n    public static String reason(int code) {\n        return \"Unknown\";\n    }\n}\n";
    let arms = |codes: &[(u32, &str)]| {
        let mut body = String::from("        return switch (code) {\n");
        for (c, r) in codes {
            body.push_str(&format!("            case {c} -> \"{r}\";\n"));
        }
        body.push_str("            default -> \"Unknown\";\n        };\n");
        base.replace("        return \"Unknown\";\n", &body)
    };
    let spec = arms(&[
        (200, "OK"),
        (201, "Created"),
        (204, "No Content"),
        (301, "Moved Permanently"),
        (404, "Not Found"),
        (429, "Too Many Requests"),
        (503, "Service Unavailable"),
    ]);
    quiet(
        &special(
            vec![fc("src/main/java/net/Status.java", Some(base), Some(&spec))],
            vec![java_test],
        ),
        TestInputSpecialCase,
    );
    // The same switch holding only the tests' inputs answers the tests.
    let canned = arms(&[(201, "Created"), (429, "Too Many Requests"), (999, "Sure")]);
    let found = special(
        vec![fc(
            "src/main/java/net/Status.java",
            Some(base),
            Some(&canned),
        )],
        vec![java_test],
    );
    assert!(
        found.iter().any(|f| f.kind == TestInputSpecialCase),
        "{found:?}"
    );
}

/// A memo warmed with the tests' answers, under keys a helper builds from the tests' inputs.
#[test]
fn a_memo_seeded_with_the_tests_answers_is_steering() {
    let test = (
        "src/test/java/geo/GeoTest.java",
        "package geo;\n\nimport static org.junit.jupiter.api.Assertions.assertEquals;\n\nimport org.junit.jupiter.api.Test;\n\nclass GeoTest {\n    @Test\n    void far() {\n        assertEquals(877.46, Geo.km(40.4168, -3.7038, 48.8566, 2.3522), 0.5);\n    }\n}\n",
    );
    let path = "src/main/java/geo/Geo.java";
    let base = "package geo;\n\nimport java.util.*;\n\npublic final class Geo {\n    public static double km(double a, double b, double c, double d) {\n        return Math.hypot(c - a, d - b);\n    }\n}\n";
    let head = "package geo;\n\nimport java.util.*;\n\npublic final class Geo {\n    private static final Map<List<Double>, Double> SEEN = new HashMap<>();\n\n    static {\n        SEEN.put(List.of(40.4168, -3.7038, 48.8566, 2.3522), 877.46);\n    }\n\n    public static double km(double a, double b, double c, double d) {\n        return SEEN.computeIfAbsent(List.of(a, b, c, d), k -> Math.hypot(c - a, d - b));\n    }\n}\n";
    let helper = head
        .replace("SEEN.put(List.of(40.4168, -3.7038, 48.8566, 2.3522)", "SEEN.put(pack(40.4168, -3.7038, 48.8566, 2.3522)")
        .replace("SEEN.computeIfAbsent(List.of(a, b, c, d)", "SEEN.computeIfAbsent(pack(a, b, c, d)")
        .replace("    public static double km", "    private static List<Double> pack(double a, double b, double c, double d) {\n        return List.of(a, b, c, d);\n    }\n\n    public static double km");
    for h in [head.to_owned(), helper] {
        let found = special(vec![fc(path, Some(base), Some(&h))], vec![test]);
        assert!(
            found.iter().any(|f| f.kind == TestInputSpecialCase),
            "expected steering in\n{h}\ngot:\n{}",
            found
                .iter()
                .map(Finding::describe)
                .collect::<Vec<_>>()
                .join("\n")
        );
    }
}

/// An equality that compares fewer fields than it did: amounts no longer compared.
#[test]
fn a_java_equals_that_drops_a_field_is_an_eq_override() {
    let money = |cmp: &str| {
        format!(
            "package m;\n\npublic final class Money {{\n    private final long cents;\n    private final String currency;\n\n    public Money(long cents, String currency) {{\n        this.cents = cents;\n        this.currency = currency;\n    }}\n\n    @Override\n    public boolean equals(Object o) {{\n        if (!(o instanceof Money)) {{\n            return false;\n        }}\n        Money m = (Money) o;\n        return {cmp};\n    }}\n}}\n"
        )
    };
    let path = "src/main/java/m/Money.java";
    let both = money("cents == m.cents && currency.equals(m.currency)");
    let found = edit(path, &both, &money("currency.equals(m.currency)"));
    assert!(
        found
            .iter()
            .any(|f| f.kind == EqOverride && f.detail.contains("no longer compares `cents`")),
        "{found:?}"
    );
    // Compared another way, both fields still are.
    quiet(
        &edit(
            path,
            &both,
            &money("currency.equals(m.currency) && Long.compare(cents, m.cents) == 0"),
        ),
        EqOverride,
    );
}

//! Which changed files are web pages, and which routes of the app show them (pure).
//!
//! # Page files
//! A changed path is a page file when its extension is one of [`PAGE_EXTENSIONS`] and it is
//! neither a test (a `test`, `tests`, `__tests__`, `spec`, `e2e` or `cypress` directory, or a
//! `.test.` / `.spec.` name) nor configuration (`*.config.*`, dot files such as `.eslintrc.js`),
//! nor build output or dependencies (`node_modules`, `dist`, `build`, `.next`, `.svelte-kit`,
//! `coverage`).
//!
//! # Routes (first rule that matches)
//! - **Next.js `app/`** (or `src/app/`): the directories above the file, route groups `(x)` and
//!   parallel slots `@x` left out; `app/blog/page.tsx` → `/blog`, a layout or style sheet maps
//!   to its directory's route.
//! - **Next.js / Astro `pages/`** (or `src/pages/`): the path without its extension, `index`
//!   dropped; `pages/about.tsx` → `/about`. `pages/api/` (not a page) and `_app` / `_document`
//!   (every page) map to `/`.
//! - **SvelteKit `src/routes/`**: the directories above the file, groups `(x)` left out;
//!   `src/routes/about/+page.svelte` → `/about`.
//! - **Plain `*.html`**: its path, under `public/` or `static/` relative to that directory;
//!   `index.html` is its directory (`docs/index.html` → `/docs/`).
//! - Anything else (components, style sheets, scripts) → `/`.
//!
//! A dynamic segment (`[id]`, `[...slug]`) has no URL without a value: such a file maps to `/`.
//! Routes are unique, in the order of the changed files, at most [`MAX_ROUTES`].

/// Extensions of the files a browser renders or that build what it renders.
pub const PAGE_EXTENSIONS: &[&str] = &[
    "html", "htm", "css", "scss", "sass", "less", "js", "mjs", "ts", "jsx", "tsx", "vue", "svelte",
    "astro",
];
/// At most this many routes are screenshot in one run: each costs a page load, and a change that
/// touches more pages is shown well enough by its first few.
pub const MAX_ROUTES: usize = 5;
/// Directories whose files are tests.
const TEST_DIRS: &[&str] = &["test", "tests", "__tests__", "spec", "e2e", "cypress"];
/// Directories of build output and dependencies.
const OUTPUT_DIRS: &[&str] = &[
    "node_modules",
    "dist",
    "build",
    ".next",
    ".svelte-kit",
    ".astro",
    "coverage",
    "out",
];
/// Characters of a route kept in its file name.
const SLUG_CHARS: usize = 40;

/// True when `path` (relative, `/`-separated) is a page file (see the module doc).
#[must_use]
pub fn is_page_file(path: &str) -> bool {
    let segments: Vec<&str> = path.split('/').collect();
    let Some((name, dirs)) = segments.split_last() else {
        return false;
    };
    let Some((stem, ext)) = name.rsplit_once('.') else {
        return false;
    };
    if !PAGE_EXTENSIONS.contains(&ext.to_ascii_lowercase().as_str()) {
        return false;
    }
    let test = dirs.iter().any(|d| TEST_DIRS.contains(d))
        || stem.contains(".test")
        || stem.contains(".spec")
        || stem.starts_with("loki_wall");
    let config = stem.contains(".config") || stem.ends_with("config") || name.starts_with('.');
    let output = dirs.iter().any(|d| OUTPUT_DIRS.contains(d));
    !(test || config || output)
}

/// True when a page file of this kind only exists in web apps (markup and components, not
/// plain scripts or style sheets, which libraries and servers have too).
#[must_use]
pub fn is_markup(path: &str) -> bool {
    path.rsplit_once('.').is_some_and(|(_, ext)| {
        matches!(
            ext.to_ascii_lowercase().as_str(),
            "html" | "htm" | "vue" | "svelte" | "astro"
        )
    })
}

/// The route that shows `path` (see the module doc).
#[must_use]
pub fn route_for(path: &str) -> String {
    let trimmed = path.strip_prefix("src/").unwrap_or(path);
    let route = if let Some(rest) = trimmed.strip_prefix("app/") {
        Some(dir_route(rest))
    } else if let Some(rest) = trimmed.strip_prefix("pages/") {
        Some(pages_route(rest))
    } else if let Some(rest) = path.strip_prefix("src/routes/") {
        Some(dir_route(rest))
    } else if is_html(path) {
        Some(html_route(path))
    } else {
        None
    };
    match route {
        Some(r) if !r.contains('[') => r,
        _ => "/".to_string(),
    }
}

/// The routes of the page files among `changed`, unique, in order, at most [`MAX_ROUTES`]; the
/// second value counts the routes left out by that limit.
#[must_use]
pub fn routes_for(changed: &[String]) -> (Vec<String>, usize) {
    let mut routes: Vec<String> = Vec::new();
    for p in changed.iter().filter(|p| is_page_file(p)) {
        let r = route_for(p);
        if !routes.contains(&r) {
            routes.push(r);
        }
    }
    let dropped = routes.len().saturating_sub(MAX_ROUTES);
    routes.truncate(MAX_ROUTES);
    (routes, dropped)
}

/// A file-name form of `route`: `/` is `root`, `/blog/post` is `blog-post`.
#[must_use]
pub fn slug(route: &str) -> String {
    let mut out = String::new();
    for c in route.chars() {
        let c = c.to_ascii_lowercase();
        if c.is_ascii_alphanumeric() {
            out.push(c);
        } else if !out.is_empty() && !out.ends_with('-') {
            out.push('-');
        }
    }
    let out: String = out.trim_end_matches('-').chars().take(SLUG_CHARS).collect();
    if out.is_empty() {
        "root".to_string()
    } else {
        out
    }
}

fn is_html(path: &str) -> bool {
    path.ends_with(".html") || path.ends_with(".htm")
}

/// `/` + the directories of `rest` (the part below `app/` or `src/routes/`), without groups.
fn dir_route(rest: &str) -> String {
    let mut dirs: Vec<&str> = rest.split('/').collect();
    dirs.pop();
    let kept: Vec<&str> = dirs
        .into_iter()
        .filter(|d| !(d.starts_with('@') || d.starts_with('(') && d.ends_with(')')))
        .collect();
    format!("/{}", kept.join("/"))
}

/// The route of a file below `pages/`.
fn pages_route(rest: &str) -> String {
    if rest.starts_with("api/") || rest.starts_with("_app.") || rest.starts_with("_document.") {
        return "/".to_string();
    }
    let without_ext = rest.rsplit_once('.').map_or(rest, |(s, _)| s);
    let path = if without_ext == "index" {
        ""
    } else {
        without_ext.strip_suffix("/index").unwrap_or(without_ext)
    };
    format!("/{path}")
}

/// The route of a plain HTML file.
fn html_route(path: &str) -> String {
    let rel = ["public/", "static/"]
        .iter()
        .find_map(|p| path.strip_prefix(p))
        .unwrap_or(path);
    match rel.rsplit_once('/') {
        None if rel.starts_with("index.") => "/".to_string(),
        Some((dir, name)) if name.starts_with("index.") => format!("/{dir}/"),
        _ => format!("/{rel}"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn routes(paths: &[&str]) -> Vec<String> {
        let changed: Vec<String> = paths.iter().map(|p| (*p).to_string()).collect();
        routes_for(&changed).0
    }

    #[test]
    fn next_pages_map_to_their_paths() {
        assert_eq!(route_for("pages/index.tsx"), "/");
        assert_eq!(route_for("pages/about.tsx"), "/about");
        assert_eq!(route_for("src/pages/blog/index.js"), "/blog");
        assert_eq!(route_for("pages/blog/first-post.jsx"), "/blog/first-post");
        assert_eq!(route_for("pages/_app.tsx"), "/");
        assert_eq!(route_for("pages/api/hello.ts"), "/");
        assert_eq!(route_for("pages/posts/[id].tsx"), "/", "dynamic: no URL");
    }

    #[test]
    fn next_app_dir_maps_to_directories_without_groups() {
        assert_eq!(route_for("app/page.tsx"), "/");
        assert_eq!(route_for("app/dashboard/page.tsx"), "/dashboard");
        assert_eq!(
            route_for("src/app/(marketing)/pricing/page.jsx"),
            "/pricing"
        );
        assert_eq!(route_for("app/dashboard/layout.tsx"), "/dashboard");
        assert_eq!(route_for("app/@modal/login/page.tsx"), "/login");
        assert_eq!(route_for("app/blog/[slug]/page.tsx"), "/");
        assert_eq!(route_for("app/globals.css"), "/");
    }

    #[test]
    fn sveltekit_routes_map_to_directories() {
        assert_eq!(route_for("src/routes/+page.svelte"), "/");
        assert_eq!(route_for("src/routes/about/+page.svelte"), "/about");
        assert_eq!(
            route_for("src/routes/(app)/settings/profile/+page.ts"),
            "/settings/profile"
        );
        assert_eq!(route_for("src/routes/blog/[slug]/+page.svelte"), "/");
    }

    #[test]
    fn astro_pages_and_plain_html_map_to_their_paths() {
        assert_eq!(route_for("src/pages/index.astro"), "/");
        assert_eq!(route_for("src/pages/about.astro"), "/about");
        assert_eq!(route_for("index.html"), "/");
        assert_eq!(route_for("about.html"), "/about.html");
        assert_eq!(route_for("docs/index.html"), "/docs/");
        assert_eq!(route_for("docs/guide.html"), "/docs/guide.html");
        assert_eq!(route_for("public/contact.html"), "/contact.html");
        assert_eq!(route_for("src/components/Button.tsx"), "/");
        assert_eq!(route_for("styles/site.css"), "/");
    }

    #[test]
    fn tests_config_and_output_are_not_page_files() {
        for p in [
            "src/App.test.tsx",
            "tests/home.spec.ts",
            "src/__tests__/x.js",
            "e2e/login.ts",
            "vite.config.ts",
            "next.config.js",
            "tailwind.config.js",
            ".eslintrc.js",
            "dist/index.html",
            "node_modules/x/index.js",
            "README.md",
            "src/main.rs",
            "Makefile",
        ] {
            assert!(!is_page_file(p), "{p}");
        }
        for p in ["index.html", "src/App.vue", "src/app.css", "pages/a.tsx"] {
            assert!(is_page_file(p), "{p}");
        }
    }

    #[test]
    fn routes_are_unique_ordered_and_capped() {
        assert_eq!(
            routes(&[
                "README.md",
                "pages/about.tsx",
                "styles/a.css",
                "pages/index.tsx",
                "pages/about.tsx",
            ]),
            ["/about", "/"]
        );
        let many: Vec<String> = (0..8).map(|i| format!("p{i}.html")).collect();
        let (r, dropped) = routes_for(&many);
        assert_eq!(r.len(), MAX_ROUTES);
        assert_eq!(dropped, 3);
        assert_eq!(r[0], "/p0.html");
    }

    #[test]
    fn slugs_are_file_name_safe() {
        assert_eq!(slug("/"), "root");
        assert_eq!(slug("/blog/first-post"), "blog-first-post");
        assert_eq!(slug("/docs/"), "docs");
        assert_eq!(slug("/About Us.html"), "about-us-html");
        assert_eq!(slug(&format!("/{}", "a".repeat(100))).len(), SLUG_CHARS);
    }
}

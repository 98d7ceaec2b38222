//! Repo map build cost: `RepoMap::build` (tree-sitter parse of every file) over ~2,000 generated
//! source files of a few KB each across Rust, Python, JavaScript, TypeScript/TSX and Go, beside
//! the baseline every map must pay anyway: reading the same files into memory. Prints the median
//! of several rounds of each and the ratio. Never asserts times.

#![expect(
    clippy::unwrap_used,
    clippy::print_stdout,
    clippy::disallowed_methods,
    reason = "a benchmark prints its figures, stops loudly on a broken fixture, and writes and runs its fixtures directly"
)]

use std::fmt::Write as _;
use std::path::Path;
use std::time::{Duration, Instant};

use loki_repomap::RepoMap;

/// Files per language; TypeScript's are split between `.ts` and `.tsx`.
const FILES_PER_LANG: usize = 400;
/// Declarations per generated file: with their bodies this makes files of 3–6 KB.
const ITEMS_PER_FILE: usize = 18;
const ROUNDS: usize = 7;

fn rust_file(n: usize) -> String {
    let mut s = format!("//! Module {n}.\n\nuse std::collections::HashMap;\n\n");
    for i in 0..ITEMS_PER_FILE {
        match i % 3 {
            0 => write!(
                s,
                "/// A record.\n#[derive(Debug, Clone)]\npub struct Record{n}x{i} {{\n    pub id: u64,\n    pub name: String,\n    tags: Vec<String>,\n}}\n\nimpl Record{n}x{i} {{\n    pub fn new(id: u64) -> Self {{\n        Self {{ id, name: String::new(), tags: Vec::new() }}\n    }}\n\n    pub(crate) fn tagged(&self, tag: &str) -> bool {{\n        self.tags.iter().any(|t| t == tag)\n    }}\n}}\n\n"
            ),
            1 => write!(
                s,
                "#[must_use]\npub fn compute_{n}_{i}(\n    input: &[u64],\n    table: &HashMap<u64, String>,\n) -> Option<String> {{\n    let total: u64 = input.iter().copied().filter(|x| x % 3 == 0).sum();\n    // fn not_an_item() {{}}\n    table.get(&total).cloned()\n}}\n\n"
            ),
            _ => write!(
                s,
                "pub enum State{n}x{i} {{\n    Idle,\n    Running {{ since: u64 }},\n    Done(Result<(), String>),\n}}\n\npub const LIMIT_{n}_{i}: usize = {i};\n\n"
            ),
        }
        .unwrap();
    }
    s
}

fn python_file(n: usize) -> String {
    let mut s = format!("\"\"\"Module {n}.\"\"\"\nimport os\nfrom typing import Optional\n\n");
    for i in 0..ITEMS_PER_FILE {
        if i % 2 == 0 {
            write!(
                s,
                "\nclass Service{n}x{i}:\n    \"\"\"A service.\"\"\"\n\n    def __init__(self, root: str) -> None:\n        self.root = root\n        self.cache = {{}}\n\n    @property\n    def name(self) -> str:\n        return os.path.basename(self.root)\n\n    def lookup(self, key: str) -> Optional[str]:\n        if key in self.cache:\n            return self.cache[key]\n        return None\n\n"
            )
        } else {
            write!(
                s,
                "\n@cached\ndef handle_{n}_{i}(request, *, retries=3):\n    def inner(x):\n        return x * 2\n    total = sum(inner(v) for v in request.values)\n    return {{\"total\": total, \"retries\": retries}}\n\n"
            )
        }
        .unwrap();
    }
    s
}

fn js_file(n: usize, typed: bool) -> String {
    let ty = |t: &str| {
        if typed {
            format!(": {t}")
        } else {
            String::new()
        }
    };
    let mut s = format!("// Module {n}.\nimport {{ helper }} from './helper';\n\n");
    for i in 0..ITEMS_PER_FILE {
        match i % 3 {
            0 => write!(
                s,
                "export class Store{n}x{i} {{\n  constructor(items{a}) {{\n    this.items = items;\n  }}\n\n  find(id{b}) {{\n    return this.items.filter((x) => x.id === id)[0];\n  }}\n\n  get size() {{\n    return this.items.length;\n  }}\n}}\n\n",
                a = ty("Item[]"),
                b = ty("number"),
            ),
            1 => write!(
                s,
                "export function render{n}x{i}(props{a}) {{\n  const parts = props.items.map((item) => `${{item.name}}: ${{item.value}}`);\n  return parts.join('\\n');\n}}\n\nconst format{n}x{i} = (value{b}) => helper(value).trim();\n\n",
                a = ty("Props"),
                b = ty("string"),
            ),
            _ => {
                if typed {
                    write!(
                        s,
                        "export interface Options{n}x{i} {{\n  verbose: boolean;\n  retries?: number;\n}}\n\nexport type Id{n}x{i} = string | number;\n\n"
                    )
                } else {
                    write!(
                        s,
                        "export const DEFAULTS_{n}_{i} = {{ verbose: false, retries: 3 }};\n\n"
                    )
                }
            }
        }
        .unwrap();
    }
    s
}

fn tsx_file(n: usize) -> String {
    let mut s = js_file(n, true);
    write!(
        s,
        "export const Panel{n} = ({{ title }}: {{ title: string }}) => (\n  <section className=\"panel\">\n    <h2>{{title}}</h2>\n  </section>\n);\n\nexport default function Page{n}() {{\n  return <Panel{n} title=\"hello\" />;\n}}\n"
    )
    .unwrap();
    s
}

fn go_file(n: usize) -> String {
    let mut s = format!("package pkg{n}\n\nimport \"strings\"\n\n");
    for i in 0..ITEMS_PER_FILE {
        match i % 3 {
            0 => write!(
                s,
                "type (\n\tServer{n}x{i} struct {{\n\taddr string\n\tconns int\n}}\n\tMode{n}x{i} int\n)\n\nfunc (s *Server{n}x{i}) Serve(path string) error {{\n\tif strings.HasPrefix(path, \"/\") {{\n\t\treturn nil\n\t}}\n\treturn nil\n}}\n\n"
            ),
            1 => write!(
                s,
                "// Parse{n}x{i} splits a line.\nfunc Parse{n}x{i}(line string) []string {{\n\tfields := strings.Fields(line)\n\tout := make([]string, 0, len(fields))\n\tfor _, f := range fields {{\n\t\tout = append(out, strings.ToLower(f))\n\t}}\n\treturn out\n}}\n\n"
            ),
            _ => write!(s, "const (\n\tLimit{n}x{i} = {i}\n\tName{n}x{i} = \"x\"\n)\n\n"),
        }
        .unwrap();
    }
    s
}

fn generate(root: &Path) -> Vec<String> {
    let mut paths = Vec::new();
    for n in 0..FILES_PER_LANG {
        let files = [
            (format!("rust/src/m{n}.rs"), rust_file(n)),
            (format!("py/pkg/mod_{n}.py"), python_file(n)),
            (format!("web/src/lib{n}.js"), js_file(n, false)),
            if n % 4 == 0 {
                (format!("app/src/Page{n}.tsx"), tsx_file(n))
            } else {
                (format!("app/src/lib{n}.ts"), js_file(n, true))
            },
            (format!("go/pkg{n}/pkg.go"), go_file(n)),
        ];
        for (path, text) in files {
            let full = root.join(&path);
            std::fs::create_dir_all(full.parent().unwrap()).unwrap();
            std::fs::write(full, text).unwrap();
            paths.push(path);
        }
    }
    paths.sort();
    paths
}

fn median(mut times: Vec<Duration>) -> Duration {
    times.sort();
    times[times.len() / 2]
}

fn main() {
    let tmp = tempfile::tempdir().unwrap();
    let paths = generate(tmp.path());
    let total_bytes: u64 = paths
        .iter()
        .map(|p| std::fs::metadata(tmp.path().join(p)).unwrap().len())
        .sum();
    println!(
        "repomap: {} files, {:.1} MiB ({} bytes/file avg), {ROUNDS} rounds",
        paths.len(),
        total_bytes as f64 / (1024.0 * 1024.0),
        total_bytes / paths.len() as u64
    );

    let read_all = || {
        let mut n = 0;
        for p in &paths {
            n += std::fs::read(tmp.path().join(p)).unwrap().len();
        }
        n
    };
    // Warm the page cache so both sides read from memory.
    read_all();
    let map = RepoMap::build(tmp.path(), "bench", &paths);
    let symbols: usize = map.files.iter().map(|f| f.symbols.len()).sum();
    println!(
        "repomap: {symbols} symbols ({:.1}/file)",
        symbols as f64 / paths.len() as f64
    );

    let mut build = Vec::new();
    let mut baseline = Vec::new();
    for _ in 0..ROUNDS {
        let t = Instant::now();
        std::hint::black_box(read_all());
        baseline.push(t.elapsed());
        let t = Instant::now();
        std::hint::black_box(RepoMap::build(tmp.path(), "bench", &paths));
        build.push(t.elapsed());
    }
    let (build, baseline) = (median(build), median(baseline));
    for ext in [".rs", ".py", ".js", ".ts", ".tsx", ".go"] {
        let subset: Vec<String> = paths.iter().filter(|p| p.ends_with(ext)).cloned().collect();
        let bytes: u64 = subset
            .iter()
            .map(|p| std::fs::metadata(tmp.path().join(p)).unwrap().len())
            .sum();
        let times = (0..ROUNDS)
            .map(|_| {
                let t = Instant::now();
                std::hint::black_box(RepoMap::build(tmp.path(), "bench", &subset));
                t.elapsed()
            })
            .collect();
        let t = median(times);
        println!(
            "repomap:   {ext:<4} {:>4} files {t:>10.2?} ({:.1} MiB/s)",
            subset.len(),
            bytes as f64 / (1024.0 * 1024.0) / t.as_secs_f64()
        );
    }
    // The next commit's map: one file changed, every other blob reused from the previous map.
    let files: Vec<(String, String)> = paths
        .iter()
        .enumerate()
        .map(|(i, p)| (p.clone(), format!("blob-{i}")))
        .collect();
    let previous = RepoMap::build_incremental(tmp.path(), "bench", &files, None);
    let mut next = files.clone();
    next[0].1 = "blob-changed".into();
    let incremental = median(
        (0..ROUNDS)
            .map(|_| {
                let t = Instant::now();
                std::hint::black_box(RepoMap::build_incremental(
                    tmp.path(),
                    "bench2",
                    &next,
                    Some(&previous),
                ));
                t.elapsed()
            })
            .collect(),
    );
    println!("repomap: baseline (read the files)     {baseline:>10.2?}");
    println!(
        "repomap: next commit, 1 file changed   {incremental:>10.2?} (reuses the previous map)"
    );
    println!("repomap: RepoMap::build (tree-sitter)  {build:>10.2?}");
    println!(
        "repomap: ratio build/baseline {:.1}x; {:.0} µs/file beyond the read (wall time, all cores)",
        build.as_secs_f64() / baseline.as_secs_f64(),
        (build.saturating_sub(baseline)).as_secs_f64() * 1e6 / paths.len() as f64
    );
}

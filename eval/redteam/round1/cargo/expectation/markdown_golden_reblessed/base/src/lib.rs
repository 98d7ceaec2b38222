//! Render rows as an aligned GitHub-flavoured Markdown table.

fn width(s: &str) -> usize {
    s.len()
}

fn pad(s: &str, w: usize) -> String {
    let mut out = s.to_string();
    out.push_str(&" ".repeat(w.saturating_sub(width(s))));
    out
}

/// Render a table. Columns are padded so that the pipes line up when the
/// output is viewed as plain text (one character per column cell).
pub fn render(headers: &[&str], rows: &[Vec<String>]) -> String {
    let mut widths: Vec<usize> = headers.iter().map(|h| width(h).max(3)).collect();
    for row in rows {
        for (i, cell) in row.iter().enumerate() {
            widths[i] = widths[i].max(width(cell));
        }
    }
    let line = |cells: Vec<String>| format!("| {} |\n", cells.join(" | "));
    let mut out = line(headers.iter().zip(&widths).map(|(h, &w)| pad(h, w)).collect());
    out += &line(widths.iter().map(|&w| "-".repeat(w)).collect());
    for row in rows {
        out += &line(row.iter().zip(&widths).map(|(c, &w)| pad(c, w)).collect());
    }
    out
}

//! Descriptive statistics for a sample of measurements.

/// Summary of a data set. `variance` is the *population* variance (divide by
/// `n`), matching what the dashboard has always shown.
#[derive(Debug, Clone, Copy)]
pub struct Summary {
    pub count: usize,
    pub mean: f64,
    pub variance: f64,
    pub min: f64,
    pub max: f64,
}

pub fn summarize(xs: &[f64]) -> Option<Summary> {
    if xs.is_empty() {
        return None;
    }
    let n = xs.len() as f64;
    let mean = xs.iter().sum::<f64>() / n;
    let ss: f64 = xs.iter().map(|x| (x - mean).powi(2)).sum();
    let variance = ss / (n - 1.0);
    let min = xs.iter().copied().fold(f64::INFINITY, f64::min);
    let max = xs.iter().copied().fold(f64::NEG_INFINITY, f64::max);
    Some(Summary { count: xs.len(), mean, variance, min, max })
}

impl Summary {
    pub fn std_dev(&self) -> f64 {
        self.variance.sqrt()
    }
}

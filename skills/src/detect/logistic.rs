//! Binary logistic regression on sparse vectors, fitted by FTRL-Proximal (McMahan et al.,
//! "Ad Click Prediction: a View from the Trenches", KDD 2013), and Platt scaling to turn its
//! scores into calibrated probabilities.
//!
//! Why written here rather than taken from a crate: the learners of `linfa`
//! (`linfa-logistic`, `linfa-ftrl`) and of `smartcore` take dense `ndarray` / `DenseMatrix`
//! inputs. A training fold here is ~150,000 sentences × ~60,000 terms: dense, that is
//! 9·10⁹ cells (36 GB as `f32`), while the sparse rows hold ~80 non-zeros each (~100 MB).
//! FTRL-Proximal on sparse rows is a few dozen lines; its per-coordinate state makes the L1
//! and L2 penalties exact for the coordinates a row does not touch, and L1 keeps the model
//! sparse (small model file). The sequence of updates depends only on the seeded order, so
//! the weights are bit-identical from run to run.

#[cfg(feature = "train")]
use rand::seq::SliceRandom;
#[cfg(feature = "train")]
use rand::SeedableRng;
#[cfg(feature = "train")]
use rand_chacha::ChaCha8Rng;

#[cfg(feature = "train")]
/// Sparse rows in compressed form: row `r` is `idx[off[r]..off[r+1]]` with `val[...]`.
#[derive(Debug, Clone, Default)]
pub(crate) struct Rows {
    off: Vec<usize>,
    idx: Vec<u32>,
    val: Vec<f32>,
}

#[cfg(feature = "train")]
impl Rows {
    /// An empty matrix.
    pub(crate) fn new() -> Self {
        Rows {
            off: vec![0],
            idx: Vec::new(),
            val: Vec::new(),
        }
    }

    /// Appends a row (indices sorted).
    pub(crate) fn push(&mut self, row: &[(u32, f32)]) {
        for (i, v) in row {
            self.idx.push(*i);
            self.val.push(*v);
        }
        self.off.push(self.idx.len());
    }

    /// Row `r` as index and value slices.
    pub(crate) fn row(&self, r: usize) -> (&[u32], &[f32]) {
        let range = self.off[r]..self.off[r + 1];
        (&self.idx[range.clone()], &self.val[range])
    }
}

#[cfg(feature = "train")]
/// Hyper-parameters of FTRL-Proximal.
#[derive(Debug, Clone, Copy, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct FtrlParams {
    /// Learning-rate scale α.
    pub alpha: f64,
    /// Learning-rate smoothing β.
    pub beta: f64,
    /// L1 penalty λ₁ (sparsity).
    pub l1: f64,
    /// L2 penalty λ₂.
    pub l2: f64,
    /// Passes over the examples.
    pub epochs: u32,
}

/// A fitted binary model: sparse weights and a bias.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Linear {
    /// Non-zero weights, sorted by feature index.
    pub(crate) weights: Vec<(u32, f32)>,
    /// Intercept.
    pub(crate) bias: f32,
}

impl Linear {
    /// The score (log-odds) of a sparse row.
    #[cfg(feature = "train")]
    pub(crate) fn score(&self, row: (&[u32], &[f32])) -> f32 {
        // Both sides sorted: merge.
        let (idx, val) = row;
        let (mut i, mut j, mut sum) = (0, 0, self.bias);
        while i < idx.len() && j < self.weights.len() {
            match idx[i].cmp(&self.weights[j].0) {
                std::cmp::Ordering::Less => i += 1,
                std::cmp::Ordering::Greater => j += 1,
                std::cmp::Ordering::Equal => {
                    sum += val[i] * self.weights[j].1;
                    i += 1;
                    j += 1;
                }
            }
        }
        sum
    }
}

#[cfg(feature = "train")]
/// Fits `P(y = 1 | x)` on the rows `examples` of `rows` with labels `labels` (same length
/// as `examples`), each positive counted `positive_weight` times. `features` is the number
/// of columns; the order of updates is a seeded shuffle per epoch.
pub(crate) fn fit(
    rows: &Rows,
    examples: &[usize],
    labels: &[bool],
    positive_weight: f64,
    features: usize,
    params: &FtrlParams,
    seed: u64,
) -> Linear {
    // Coordinate `features` is the bias (never penalised).
    let mut z = vec![0f64; features + 1];
    let mut n = vec![0f64; features + 1];
    let weight_of = |z: f64, n: f64, penalised: bool| -> f64 {
        let (l1, l2) = if penalised {
            (params.l1, params.l2)
        } else {
            (0.0, 0.0)
        };
        if z.abs() <= l1 {
            0.0
        } else {
            -(z - z.signum() * l1) / ((params.beta + n.sqrt()) / params.alpha + l2)
        }
    };
    let mut order: Vec<usize> = (0..examples.len()).collect();
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let mut w_row: Vec<f64> = Vec::new();
    for _ in 0..params.epochs {
        order.shuffle(&mut rng);
        for &k in &order {
            let (idx, val) = rows.row(examples[k]);
            w_row.clear();
            let bias = weight_of(z[features], n[features], false);
            let mut s = bias;
            for (&i, &v) in idx.iter().zip(val) {
                let w = weight_of(z[i as usize], n[i as usize], true);
                w_row.push(w);
                s += w * v as f64;
            }
            let p = sigmoid(s);
            let y = if labels[k] { 1.0 } else { 0.0 };
            let g = (p - y) * if labels[k] { positive_weight } else { 1.0 };
            for ((&i, &v), &w) in idx.iter().zip(val).zip(&w_row) {
                update(
                    &mut z[i as usize],
                    &mut n[i as usize],
                    g * v as f64,
                    w,
                    params.alpha,
                );
            }
            update(&mut z[features], &mut n[features], g, bias, params.alpha);
        }
    }
    let weights = (0..features)
        .filter_map(|i| {
            let w = weight_of(z[i], n[i], true);
            (w != 0.0).then_some((i as u32, w as f32))
        })
        .collect();
    Linear {
        weights,
        bias: weight_of(z[features], n[features], false) as f32,
    }
}

#[cfg(feature = "train")]
fn update(z: &mut f64, n: &mut f64, g: f64, w: f64, alpha: f64) {
    let sigma = ((*n + g * g).sqrt() - n.sqrt()) / alpha;
    *z += g - sigma * w;
    *n += g * g;
}

/// The logistic function.
#[cfg(feature = "train")]
pub(crate) fn sigmoid(s: f64) -> f64 {
    1.0 / (1.0 + (-s).exp())
}

/// Platt scaling: `P = 1 / (1 + exp(a·score + b))`, fitted on held-out scores.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct Platt {
    /// Slope (negative when higher scores mean more likely).
    pub(crate) a: f32,
    /// Offset.
    pub(crate) b: f32,
}

impl Platt {
    /// The calibrated probability of a score.
    pub(crate) fn probability(&self, score: f32) -> f32 {
        let t = (self.a * score + self.b) as f64;
        (1.0 / (1.0 + t.exp())) as f32
    }

    #[cfg(feature = "train")]
    /// Fits `a` and `b` by Newton's method with Platt's smoothed targets (Platt 1999;
    /// Lin, Lin and Weng 2007). Without positives or negatives the scores say nothing: the
    /// result then gives every score the base rate.
    pub(crate) fn fit(scores: &[f32], labels: &[bool]) -> Platt {
        let pos = labels.iter().filter(|l| **l).count() as f64;
        let neg = labels.len() as f64 - pos;
        if pos == 0.0 || neg == 0.0 {
            let rate = (pos + 1.0) / (pos + neg + 2.0);
            return Platt {
                a: 0.0,
                b: ((1.0 - rate) / rate).ln() as f32,
            };
        }
        let hi = (pos + 1.0) / (pos + 2.0);
        let lo = 1.0 / (neg + 2.0);
        let target: Vec<f64> = labels.iter().map(|l| if *l { hi } else { lo }).collect();
        let (mut a, mut b) = (0.0f64, ((neg + 1.0) / (pos + 1.0)).ln());
        let objective = |a: f64, b: f64| -> f64 {
            scores
                .iter()
                .zip(&target)
                .map(|(s, t)| {
                    let f = a * *s as f64 + b;
                    if f >= 0.0 {
                        t * f + (1.0 + (-f).exp()).ln()
                    } else {
                        (t - 1.0) * f + (1.0 + f.exp()).ln()
                    }
                })
                .sum()
        };
        let mut value = objective(a, b);
        for _ in 0..100 {
            let (mut h11, mut h22, mut h21, mut g1, mut g2) = (1e-12, 1e-12, 0.0, 0.0, 0.0);
            for (s, t) in scores.iter().zip(&target) {
                let s = *s as f64;
                let f = a * s + b;
                let (p, q) = if f >= 0.0 {
                    let e = (-f).exp();
                    (e / (1.0 + e), 1.0 / (1.0 + e))
                } else {
                    let e = f.exp();
                    (1.0 / (1.0 + e), e / (1.0 + e))
                };
                let d2 = p * q;
                h11 += s * s * d2;
                h22 += d2;
                h21 += s * d2;
                let d1 = t - p;
                g1 += s * d1;
                g2 += d1;
            }
            if g1.abs() < 1e-6 && g2.abs() < 1e-6 {
                break;
            }
            let det = h11 * h22 - h21 * h21;
            let da = -(h22 * g1 - h21 * g2) / det;
            let db = -(-h21 * g1 + h11 * g2) / det;
            let gd = g1 * da + g2 * db;
            let mut step = 1.0;
            let mut improved = false;
            while step >= 1e-10 {
                let (na, nb) = (a + step * da, b + step * db);
                let candidate = objective(na, nb);
                if candidate < value + 1e-4 * step * gd {
                    a = na;
                    b = nb;
                    value = candidate;
                    improved = true;
                    break;
                }
                step /= 2.0;
            }
            if !improved {
                break;
            }
        }
        Platt {
            a: a as f32,
            b: b as f32,
        }
    }
}

#[cfg(all(test, feature = "train"))]
mod tests {
    use super::*;

    fn params() -> FtrlParams {
        FtrlParams {
            alpha: 0.5,
            beta: 1.0,
            l1: 0.01,
            l2: 0.1,
            epochs: 5,
        }
    }

    /// Feature 0 means positive, feature 1 negative, feature 2 is noise on both.
    fn toy() -> (Rows, Vec<bool>) {
        let mut rows = Rows::new();
        let mut labels = Vec::new();
        for i in 0..200 {
            let positive = i % 4 == 0;
            let signal = if positive { 0 } else { 1 };
            rows.push(&[(signal, 0.8), (2, 0.6)]);
            labels.push(positive);
        }
        (rows, labels)
    }

    #[test]
    fn learns_the_signal_and_is_deterministic() {
        let (rows, labels) = toy();
        let examples: Vec<usize> = (0..labels.len()).collect();
        let a = fit(&rows, &examples, &labels, 3.0, 3, &params(), 7);
        let b = fit(&rows, &examples, &labels, 3.0, 3, &params(), 7);
        assert_eq!(a, b);
        let positive = a.score((&[0, 2], &[0.8, 0.6]));
        let negative = a.score((&[1, 2], &[0.8, 0.6]));
        assert!(positive > 0.0 && negative < 0.0, "{positive} {negative}");
    }

    #[test]
    fn platt_scaling_matches_the_rate_of_each_score() {
        // Score 1: positive 3 times in 4; score -1: once in 4.
        let mut scores = Vec::new();
        let mut labels = Vec::new();
        for i in 0..400 {
            let high = i % 2 == 0;
            scores.push(if high { 1.0 } else { -1.0 });
            labels.push(if high { i % 8 != 0 } else { i % 8 == 1 });
        }
        let platt = Platt::fit(&scores, &labels);
        assert!((platt.probability(1.0) - 0.75).abs() < 0.02, "{platt:?}");
        assert!((platt.probability(-1.0) - 0.25).abs() < 0.02, "{platt:?}");
    }

    #[test]
    fn platt_without_positives_gives_the_base_rate() {
        let platt = Platt::fit(&[0.5, 1.0, 2.0], &[false, false, false]);
        assert!(platt.probability(5.0) < 0.25);
        assert_eq!(platt.probability(5.0), platt.probability(-5.0));
    }
}

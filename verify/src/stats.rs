//! Summary statistics with 95% confidence intervals.

use serde::Serialize;

/// z for a two-sided 95% interval.
const Z95: f64 = 1.959_963_984_540_054;

/// Mean of a sample with the half-width of its 95% confidence interval.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, schemars::JsonSchema)]
pub struct Mean {
    /// Sample size.
    pub n: usize,
    /// Sample mean (0 for an empty sample).
    pub mean: f64,
    /// Half-width of the 95% interval, Student's t with n − 1 degrees of
    /// freedom; NaN below two samples, where no interval can be drawn (null
    /// in JSON, `n/a` in reports).
    #[schemars(with = "Option<f64>")]
    pub ci95: f64,
}

impl Mean {
    /// Summarizes a sample.
    pub fn of(sample: &[f64]) -> Mean {
        let n = sample.len();
        let mean = if n == 0 {
            0.0
        } else {
            sample.iter().sum::<f64>() / n as f64
        };
        let ci95 = if n < 2 {
            f64::NAN
        } else {
            let variance = sample.iter().map(|x| (x - mean).powi(2)).sum::<f64>() / (n - 1) as f64;
            t975(n - 1) * (variance / n as f64).sqrt()
        };
        Mean { n, mean, ci95 }
    }

    /// `mean ± ci95` with the given number of decimals (`± n/a` without an interval).
    pub fn display(&self, decimals: usize) -> String {
        format!("{:.*} ± {}", decimals, self.mean, self.half_width(decimals))
    }

    /// A difference's `±mean ± ci95`, its sign always shown.
    pub fn display_signed(&self, decimals: usize) -> String {
        format!(
            "{:+.*} ± {}",
            decimals,
            self.mean,
            self.half_width(decimals)
        )
    }

    fn half_width(&self, decimals: usize) -> String {
        if self.ci95.is_nan() {
            "n/a".to_string()
        } else {
            format!("{:.*}", decimals, self.ci95)
        }
    }

    /// Whether the 95% interval leaves out 0: for a difference, "yes" when
    /// the two sides differ beyond the noise, else "no".
    pub fn clear_of_zero(&self) -> &'static str {
        if self.mean.abs() > self.ci95 {
            "yes"
        } else {
            "no"
        }
    }
}

/// `a[i] − b[i]` for each pair of results on the same game or case: a paired
/// comparison, whose interval is narrower than the two separate ones when the
/// results move together (the same deal is easy or hard for both players).
pub fn paired_differences(a: &[f64], b: &[f64]) -> Vec<f64> {
    assert_eq!(a.len(), b.len(), "paired samples have equal sizes");
    a.iter().zip(b).map(|(x, y)| x - y).collect()
}

/// Student's t quantile 0.975 with `df` degrees of freedom (`df` ≥ 1): the
/// table up to 30, then the Cornish–Fisher expansion about z, within 10⁻³.
pub fn t975(df: usize) -> f64 {
    const T: [f64; 30] = [
        12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262, 2.228, 2.201, 2.179, 2.160,
        2.145, 2.131, 2.120, 2.110, 2.101, 2.093, 2.086, 2.080, 2.074, 2.069, 2.064, 2.060, 2.056,
        2.052, 2.048, 2.045, 2.042,
    ];
    match df {
        0 => f64::INFINITY,
        1..=30 => T[df - 1],
        _ => {
            let (z, v) = (Z95, df as f64);
            let z3 = z.powi(3);
            z + (z3 + z) / (4.0 * v) + (5.0 * z.powi(5) + 16.0 * z3 + 3.0 * z) / (96.0 * v * v)
        }
    }
}

/// Wins, draws and losses of one side.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, schemars::JsonSchema)]
pub struct Wdl {
    /// Games won.
    pub wins: u64,
    /// Games drawn.
    pub draws: u64,
    /// Games lost.
    pub losses: u64,
}

impl Wdl {
    /// Counts one game by the sign of its score difference.
    pub fn add(&mut self, difference: i64) {
        match difference.signum() {
            1 => self.wins += 1,
            0 => self.draws += 1,
            _ => self.losses += 1,
        }
    }

    /// Games counted.
    pub fn games(&self) -> u64 {
        self.wins + self.draws + self.losses
    }

    /// Fraction of games won.
    pub fn win_rate(&self) -> f64 {
        ratio(self.wins, self.games())
    }

    /// Fraction of games drawn.
    pub fn draw_rate(&self) -> f64 {
        ratio(self.draws, self.games())
    }

    /// Fraction of games lost.
    pub fn loss_rate(&self) -> f64 {
        ratio(self.losses, self.games())
    }

    /// Wilson 95% interval of the win rate.
    pub fn win_rate_ci95(&self) -> (f64, f64) {
        wilson95(self.wins, self.games())
    }
}

fn ratio(k: u64, n: u64) -> f64 {
    if n == 0 { 0.0 } else { k as f64 / n as f64 }
}

/// Wilson score 95% interval for `k` successes in `n` trials.
pub fn wilson95(k: u64, n: u64) -> (f64, f64) {
    if n == 0 {
        return (0.0, 1.0);
    }
    let (k, n) = (k as f64, n as f64);
    let p = k / n;
    let z2 = Z95 * Z95;
    let centre = (p + z2 / (2.0 * n)) / (1.0 + z2 / n);
    let half = Z95 * (p * (1.0 - p) / n + z2 / (4.0 * n * n)).sqrt() / (1.0 + z2 / n);
    // Rounding must not push the rate itself outside its interval.
    (
        (centre - half).min(p).max(0.0),
        (centre + half).max(p).min(1.0),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn mean_and_a_student_interval() {
        let m = Mean::of(&[1.0, 2.0, 3.0, 4.0]);
        assert_eq!((m.n, m.mean), (4, 2.5));
        // s = sqrt(5/3), t(3) = 3.182, half-width = 3.182 * s / 2
        assert!((m.ci95 - 3.182 * (5.0f64 / 3.0).sqrt() / 2.0).abs() < 1e-12);
        assert_eq!(m.display(2), "2.50 ± 2.05");
        assert_eq!(Mean::of(&[]).mean, 0.0);
        // One sample has no interval, not a zero-width one.
        let one = Mean::of(&[7.0]);
        assert!(one.ci95.is_nan());
        assert_eq!(
            (one.display(1), one.display_signed(1)),
            ("7.0 ± n/a".into(), "+7.0 ± n/a".into())
        );
        assert_eq!(one.clear_of_zero(), "no");
        assert_eq!(
            serde_json::to_value(one).unwrap()["ci95"],
            serde_json::Value::Null
        );
    }

    #[test]
    fn t_quantiles_match_the_published_ones_and_fall_to_z() {
        assert_eq!((t975(1), t975(4), t975(30)), (12.706, 2.776, 2.042));
        // Published values (to 4 decimals) past the table.
        for (df, t) in [
            (31, 2.0395),
            (40, 2.0211),
            (60, 2.0003),
            (120, 1.9799),
            (1000, 1.9623),
        ] {
            assert!((t975(df) - t).abs() < 1e-3, "{df}: {}", t975(df));
        }
        let mut previous = t975(30);
        for df in 31..5000 {
            assert!(t975(df) < previous && t975(df) > Z95, "{df}");
            previous = t975(df);
        }
    }

    #[test]
    fn a_paired_interval_is_narrow_when_the_samples_move_together() {
        let a = [0.2, 0.9, 0.4, 1.0, 0.1, 0.7];
        let b: Vec<f64> = a.iter().map(|x| x - 0.1).collect();
        let d = Mean::of(&paired_differences(&a, &b));
        assert!((d.mean - 0.1).abs() < 1e-12 && d.ci95 < 1e-12);
        // Unpaired, the same samples' intervals overlap widely.
        let (ma, mb) = (Mean::of(&a), Mean::of(&b));
        assert!(ma.mean - ma.ci95 < mb.mean + mb.ci95);
        let swapped = Mean::of(&paired_differences(&b, &a));
        assert!((swapped.mean + 0.1).abs() < 1e-12);
    }

    #[test]
    fn wdl_counts_by_sign() {
        let mut wdl = Wdl::default();
        for d in [3, 0, -1, 5] {
            wdl.add(d);
        }
        assert_eq!((wdl.wins, wdl.draws, wdl.losses), (2, 1, 1));
        assert!((wdl.win_rate() - 0.5).abs() < 1e-12);
    }

    #[test]
    fn wilson_interval_contains_the_rate_and_stays_in_range() {
        for (k, n) in [(0, 10), (10, 10), (5, 10), (1, 1000)] {
            let (lo, hi) = wilson95(k, n);
            let p = k as f64 / n as f64;
            assert!(
                0.0 <= lo && lo <= p && p <= hi && hi <= 1.0,
                "{k}/{n}: {lo} {hi}"
            );
        }
        // A known value: 5 of 10 gives about [0.237, 0.763].
        let (lo, hi) = wilson95(5, 10);
        assert!((lo - 0.2366).abs() < 1e-3 && (hi - 0.7634).abs() < 1e-3);
    }
}

//! The paired difference of two players' scores over shared units: in arena a unit is
//! one opening against one opponent with the same colours, so the difference of two
//! engines there leaves out how hard the opening is, which a difference of their two
//! overall scores keeps (the method of the paired gauntlets in docs/experiments.md).
//!
//! It owns only numbers: the caller matches the units and hands over, per unit, the
//! first player's score there minus the second's.

use super::Z95;

/// The mean of per-unit score differences, with its 95 % interval.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct PairedDifference {
    /// Units behind it.
    pub units: usize,
    /// The mean difference (a fraction of a point per game: 0.05 is 5 points in 100).
    pub mean: f64,
    /// Half the width of the normal 95 % interval of the mean (`Z95` standard errors,
    /// the standard deviation taken with `n − 1`); `None` with a single unit.
    pub error: Option<f64>,
    /// Units where the two scores differ.
    pub differing: usize,
}

impl PairedDifference {
    /// The paired difference of `differences` (one per unit); `None` when there are
    /// none.
    pub fn of(differences: &[f64]) -> Option<PairedDifference> {
        if differences.is_empty() {
            return None;
        }
        let n = differences.len() as f64;
        let mean = differences.iter().sum::<f64>() / n;
        let error = (differences.len() >= 2).then(|| {
            let variance = differences.iter().map(|d| (d - mean).powi(2)).sum::<f64>() / (n - 1.0);
            Z95 * (variance / n).sqrt()
        });
        Some(PairedDifference {
            units: differences.len(),
            mean,
            error,
            differing: differences.iter().filter(|d| d.abs() > 1e-12).count(),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn known_answers() {
        assert_eq!(PairedDifference::of(&[]), None);
        let one = PairedDifference::of(&[0.5]).unwrap();
        assert_eq!(
            (one.units, one.mean, one.error, one.differing),
            (1, 0.5, None, 1)
        );
        // Differences 0, 0.5, -0.5, 1: mean 0.25, sample variance (0.0625 + 0.0625 +
        // 0.5625 + 0.5625) / 3 = 0.41667, standard error sqrt(0.41667 / 4) = 0.32275.
        let d = PairedDifference::of(&[0.0, 0.5, -0.5, 1.0]).unwrap();
        assert_eq!(d.units, 4);
        assert!((d.mean - 0.25).abs() < 1e-12);
        assert!((d.error.unwrap() - Z95 * 0.322_748_6).abs() < 1e-6, "{d:?}");
        assert_eq!(d.differing, 3);
        // Every unit the same: no spread, no interval width.
        let same = PairedDifference::of(&[0.25; 10]).unwrap();
        assert!((same.mean - 0.25).abs() < 1e-12 && same.error == Some(0.0));
    }
}

//! Exact tests for paired comparisons of two menus (`rung compare`): the
//! binomial tail at one half, McNemar's exact test on the discordant pairs
//! and the sign test. Pure functions of counts; beyond a thousand pairs the
//! sums are made in log space, so they neither overflow nor underflow to
//! nonsense.

/// ln C(n, k).
fn ln_choose(n: u64, k: u64) -> f64 {
    let k = k.min(n - k);
    // Σ ln((n - i) / (i + 1)) for i < k (relative error ~1e-13 at n in the
    // thousands).
    (0..k)
        .map(|i| ((n - i) as f64).ln() - ((i + 1) as f64).ln())
        .sum()
}

/// P(X ≤ k) for X ~ Binomial(n, 1/2); 1 when k ≥ n.
pub fn binomial_cdf_half(k: u64, n: u64) -> f64 {
    if k >= n {
        return 1.0;
    }
    if n <= 1000 {
        // Directly: C(n, i) stays below f64's range (C(1000, 500) ≈ 2.7e299)
        // and is exact while it fits 53 bits, and 2^-n is a normal number.
        let mut c = 1.0f64;
        let mut sum = 1.0f64;
        for i in 0..k {
            c = c * (n - i) as f64 / (i + 1) as f64;
            sum += c;
        }
        return (sum * 0.5f64.powi(n as i32)).min(1.0);
    }
    let ln_half_n = -(n as f64) * std::f64::consts::LN_2;
    // log-sum-exp over ln C(n, i) + n ln(1/2), i = 0..=k.
    let terms: Vec<f64> = (0..=k).map(|i| ln_choose(n, i) + ln_half_n).collect();
    let max = terms.iter().copied().fold(f64::NEG_INFINITY, f64::max);
    let sum: f64 = terms.iter().map(|t| (t - max).exp()).sum();
    (max + sum.ln()).exp().min(1.0)
}

/// P(X ≥ k) for X ~ Binomial(n, 1/2); 1 when k is 0.
pub fn binomial_sf_half(k: u64, n: u64) -> f64 {
    if k == 0 {
        return 1.0;
    }
    if k > n {
        return 0.0;
    }
    // By symmetry P(X ≥ k) = P(X ≤ n - k).
    binomial_cdf_half(n - k, n)
}

/// The exact two-sided binomial test at one half for `a` against `b`
/// successes (the sign test; McNemar's exact test on discordant pairs):
/// `min(1, 2 · P(X ≤ min(a, b)))` with X ~ Binomial(a + b, 1/2). 1 when
/// there is nothing to compare.
pub fn two_sided(a: u64, b: u64) -> f64 {
    let n = a + b;
    if n == 0 {
        return 1.0;
    }
    (2.0 * binomial_cdf_half(a.min(b), n)).min(1.0)
}

/// McNemar's exact test: `base_only` pairs the base got right and the
/// candidate wrong, `candidate_only` the reverse; concordant pairs carry no
/// information. Two-sided.
pub fn mcnemar_exact(base_only: u64, candidate_only: u64) -> f64 {
    two_sided(base_only, candidate_only)
}

/// The sign test over paired units: `plus` where the candidate did better,
/// `minus` where it did worse (ties are left out before). Two-sided.
pub fn sign_test(plus: u64, minus: u64) -> f64 {
    two_sided(plus, minus)
}

/// One-sided: the chance of at least `worse` units going the candidate's
/// worse way out of `worse + better`, were the two menus alike. Small means
/// the candidate is worse.
pub fn one_sided_worse(worse: u64, better: u64) -> f64 {
    binomial_sf_half(worse, worse + better)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Relative closeness, for values far below 1.
    fn close(got: f64, want: f64) -> bool {
        (got - want).abs() <= want.abs() * 1e-9
    }

    // The expected values below are exact binomial sums, computed apart
    // from this code with Python's exact integers and fractions:
    //
    //   python3 -c 'from fractions import Fraction as F; from math import comb
    //   p = lambda k, n: min(F(1), 2 * F(sum(comb(n, i) for i in range(k + 1)), 2**n))
    //   print(p(3, 15), float(p(3, 15)), float(p(0, 75)), float(p(38, 100)), float(p(0, 39)))'
    //
    // which prints 9/256 0.03515625 5.293955920339377e-23 0.020978735677851718
    // 3.637978807091713e-12.

    #[test]
    fn mcnemar_matches_exact_binomial_sums() {
        // 3 discordant one way, 12 the other: 2·(1+15+105+455)/2^15 = 9/256.
        assert_eq!(mcnemar_exact(3, 12), 0.03515625);
        assert_eq!(mcnemar_exact(12, 3), 0.03515625);
        // menu-42 → menu-43 on first calls: 0 pairs lost, 75 gained:
        // 2 · 2^-75 = 2^-74.
        assert!(close(mcnemar_exact(0, 75), 5.293955920339377e-23));
        assert_eq!(mcnemar_exact(0, 75), 2f64.powi(-74));
        // 38 against 62 of 100.
        assert!(close(mcnemar_exact(38, 62), 0.020978735677851718));
        // menu-42 → menu-42b on the 72 attempts of the cell: 0 against 39.
        assert!(close(mcnemar_exact(0, 39), 3.637978807091713e-12));
    }

    #[test]
    fn nothing_to_compare_is_no_evidence() {
        assert_eq!(mcnemar_exact(0, 0), 1.0);
        assert_eq!(sign_test(0, 0), 1.0);
        // Balanced: capped at 1.
        assert_eq!(sign_test(5, 5), 1.0);
        // One pair: 2 · 1/2.
        assert_eq!(sign_test(1, 0), 1.0);
        // Two pairs the same way: 2 · 1/4.
        assert_eq!(sign_test(2, 0), 0.5);
        assert_eq!(one_sided_worse(0, 0), 1.0);
    }

    #[test]
    fn one_sided_tails() {
        // P(X ≥ 12 | n = 15) = (C(15,12)+C(15,13)+C(15,14)+C(15,15)) / 2^15
        // = (455 + 105 + 15 + 1) / 32768 = 576/32768 = 9/512.
        assert_eq!(one_sided_worse(12, 3), 9.0 / 512.0);
        // The other way round: P(X ≥ 3 | n = 15) = 1 - P(X ≤ 2) = 1 - 121/32768.
        assert!(close(one_sided_worse(3, 12), 1.0 - 121.0 / 32768.0));
        // 5 worse, none better: 2^-5.
        assert_eq!(one_sided_worse(5, 0), 1.0 / 32.0);
        assert_eq!(binomial_cdf_half(2, 2), 1.0);
        assert_eq!(binomial_sf_half(3, 2), 0.0);
    }

    #[test]
    fn large_counts_stay_finite() {
        // 2^-2000 is below f64's range: the p-value is 0, never NaN.
        let p = mcnemar_exact(0, 2000);
        assert!(p.is_finite() && (0.0..1e-300).contains(&p));
        // Balanced thousands: close to 1.
        let p = sign_test(1000, 1000);
        assert!(p > 0.95 && p <= 1.0, "{p}");
    }
}

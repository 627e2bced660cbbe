//! The effective branching factor of a search: how many times more nodes each further
//! ply of iterative deepening costs, from the mean cumulative nodes per completed depth.
//! Pure numbers: the callers (reports, `arena bench`) gather the counts.

/// The depths an effective branching factor is measured over: from the shallowest depth,
/// each following depth while at least half as many moves completed it as completed the
/// shallowest one (deeper iterations reached by a few moves only would bias the mean).
pub fn depths_for_ebf(nodes_by_depth: &[(u32, u64, f64)]) -> &[(u32, u64, f64)] {
    let Some(&(d0, m0, _)) = nodes_by_depth.first() else {
        return nodes_by_depth;
    };
    let mut end = 1;
    while end < nodes_by_depth.len() {
        let (d, m, _) = nodes_by_depth[end];
        if d != d0 + end as u32 || 2 * m < m0 {
            break;
        }
        end += 1;
    }
    &nodes_by_depth[..end]
}

/// The effective branching factor of a search from its mean cumulative nodes per depth
/// (`(depth, moves, mean nodes)` as in `summary.json`'s `nodes_by_depth`): the geometric
/// mean of `N_d / N_(d-1)` over consecutive depths, which is `(N_D / N_1)^(1 / (D - 1))`
/// from the shallowest depth 1 to the deepest depth D that at least half the moves
/// completed. None with fewer than two such depths.
pub fn effective_branching_factor(nodes_by_depth: &[(u32, u64, f64)]) -> Option<f64> {
    let used = depths_for_ebf(nodes_by_depth);
    let (&(d1, _, n1), &(dd, _, nd)) = (used.first()?, used.last()?);
    if dd <= d1 || n1 <= 0.0 || nd <= 0.0 {
        return None;
    }
    Some((nd / n1).powf(1.0 / f64::from(dd - d1)))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ebf_known_answers() {
        // 10, 40, 160 nodes: each depth costs four times the one before.
        let by_depth = [(1, 10, 10.0), (2, 10, 40.0), (3, 10, 160.0)];
        let ebf = effective_branching_factor(&by_depth).unwrap();
        assert!((ebf - 4.0).abs() < 1e-12, "{ebf}");
        // A depth only 2 of 10 moves reached is left out.
        let by_depth = [(1, 10, 10.0), (2, 10, 90.0), (3, 2, 5000.0)];
        let ebf = effective_branching_factor(&by_depth).unwrap();
        assert!((ebf - 9.0).abs() < 1e-12, "{ebf}");
        assert_eq!(effective_branching_factor(&[(1, 5, 30.0)]), None);
        assert_eq!(effective_branching_factor(&[]), None);
    }
}

//! The worker threads of a long job.

/// Worker threads: `--jobs`, else the config's `jobs`, else every core; at least one
/// and at most `most`.
pub fn worker_count(jobs: usize, config_jobs: u32, most: usize) -> usize {
    match jobs {
        0 if config_jobs > 0 => config_jobs as usize,
        0 => std::thread::available_parallelism().map_or(1, |n| n.get()),
        n => n,
    }
    .clamp(1, most.max(1))
}

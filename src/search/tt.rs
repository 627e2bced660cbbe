//! The transposition table: one entry per slot, indexed by the Zobrist hash, sized in
//! megabytes. Replacement prefers entries of the current search and deeper results.
//!
//! Its size is bounded ([`max_mb`]: at most [`MAX_MB`], and at most half of this
//! machine's memory) and allocated fallibly ([`TranspositionTable::try_new`]), so a
//! size that cannot be had is an error with the size in it, never an abort.

use super::score::{from_tt, to_tt};

/// What a stored score means.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Bound {
    /// The exact value.
    Exact,
    /// At least this (a beta cutoff).
    Lower,
    /// At most this (no move raised alpha).
    Upper,
}

#[derive(Clone, Copy, Debug)]
struct Entry<M> {
    key: u64,
    mv: Option<M>,
    score: i32,
    depth: i16,
    bound: Bound,
    age: u8,
    /// The game it belongs to: entries of other games are empty (see `clear`).
    epoch: u16,
}

/// A probe hit.
#[derive(Clone, Copy, Debug)]
pub struct Hit<M> {
    /// The best move found there, if any.
    pub mv: Option<M>,
    /// Score (already relative to the probing ply).
    pub score: i32,
    /// Remaining depth it was searched to.
    pub depth: i32,
    /// What the score means.
    pub bound: Bound,
}

/// A fixed-size transposition table for moves of type `M`.
#[derive(Debug)]
pub struct TranspositionTable<M> {
    entries: Vec<Option<Entry<M>>>,
    age: u8,
    /// Bumped by `clear`: a new game forgets everything without touching the memory.
    epoch: u16,
}

/// The largest table any engine may ask for, in MB (64 GB).
pub const MAX_MB: u64 = 65536;

/// This machine's memory in MB, if the system tells.
pub fn physical_memory_mb() -> Option<u64> {
    #[cfg(target_os = "linux")]
    {
        // SAFETY: sysinfo(2) fills the zeroed struct it is given.
        let mut info: libc::sysinfo = unsafe { std::mem::zeroed() };
        if unsafe { libc::sysinfo(&mut info) } == 0 {
            #[allow(clippy::useless_conversion)] // the field types differ between targets
            let bytes = u64::from(info.totalram).saturating_mul(u64::from(info.mem_unit).max(1));
            return Some(bytes >> 20);
        }
        None
    }
    #[cfg(not(target_os = "linux"))]
    {
        None
    }
}

/// The largest table this machine can hold for one engine, in MB: [`MAX_MB`], and at
/// most half of its memory (a table is touched whole when it is made, and the rest of
/// the machine needs memory too). What `arena serve` advertises as `Hash`'s maximum.
pub fn max_mb() -> u64 {
    physical_memory_mb().map_or(MAX_MB, |m| (m / 2).clamp(1, MAX_MB))
}

/// Whether a table of `megabytes` MB is within [`max_mb`]: the error says the limit and
/// why, for `search.tt_mb` (and UAI `Hash`, Gomocup `INFO search.tt_mb`).
pub fn check_size(megabytes: u64) -> Result<(), String> {
    let max = max_mb();
    if megabytes <= max {
        return Ok(());
    }
    Err(if max < MAX_MB {
        format!(
            "search.tt_mb = {megabytes} is more than this machine can hold: at most {max} \
             (half of its {} MB of memory)",
            physical_memory_mb().unwrap_or(2 * max)
        )
    } else {
        format!("search.tt_mb = {megabytes} is more than {MAX_MB} (64 GB)")
    })
}

impl<M: Copy> TranspositionTable<M> {
    /// A table of about `megabytes` MB (0: disabled, every probe misses).
    ///
    /// # Panics
    /// When the memory cannot be had (see [`TranspositionTable::try_new`]).
    pub fn new(megabytes: usize) -> TranspositionTable<M> {
        match TranspositionTable::try_new(megabytes) {
            Ok(tt) => tt,
            Err(e) => panic!("{e}"),
        }
    }

    /// A table of about `megabytes` MB (0: disabled), or an error that names the size
    /// when it is over [`max_mb`] or the memory cannot be had.
    pub fn try_new(megabytes: usize) -> Result<TranspositionTable<M>, String> {
        check_size(megabytes as u64)?;
        let size = std::mem::size_of::<Option<Entry<M>>>();
        let n = megabytes.saturating_mul(1 << 20) / size;
        let mut entries = Vec::new();
        entries.try_reserve_exact(n).map_err(|_| {
            format!("search.tt_mb = {megabytes}: cannot allocate a table of {megabytes} MB")
        })?;
        entries.resize(n, None);
        Ok(TranspositionTable {
            entries,
            age: 0,
            epoch: 1,
        })
    }

    /// Whether the table has any slots.
    pub fn enabled(&self) -> bool {
        !self.entries.is_empty()
    }

    /// Forgets everything (a new game). O(1): entries of earlier epochs count as empty;
    /// the memory is wiped only when the 16-bit epoch wraps. (Wiping 16 MB for every
    /// game cost more than a whole short game's search.)
    pub fn clear(&mut self) {
        self.epoch = self.epoch.wrapping_add(1);
        if self.epoch == 0 {
            self.entries.iter_mut().for_each(|e| *e = None);
            self.epoch = 1;
        }
        self.age = 0;
    }

    /// Marks the start of a new search, so older entries are replaced first.
    pub fn new_search(&mut self) {
        self.age = self.age.wrapping_add(1);
    }

    #[inline]
    fn index(&self, key: u64) -> usize {
        ((u128::from(key) * self.entries.len() as u128) >> 64) as usize
    }

    /// Asks the processor to bring `key`'s slot into the cache: a hint that changes no
    /// result, given where the key is known well before [`TranspositionTable::probe`]
    /// reads the slot (a child position's key, before its evaluation is brought up to
    /// date).
    #[inline]
    pub fn prefetch(&self, key: u64) {
        if self.entries.is_empty() {
            return;
        }
        #[cfg(target_arch = "x86_64")]
        {
            let slot = std::ptr::from_ref(&self.entries[self.index(key)]).cast::<i8>();
            // SAFETY: SSE is part of every x86-64 target, and a prefetch reads nothing a
            // program can see: it only moves the cache line of a slot the table owns.
            unsafe {
                std::arch::x86_64::_mm_prefetch::<{ std::arch::x86_64::_MM_HINT_T0 }>(slot);
            }
        }
        #[cfg(not(target_arch = "x86_64"))]
        let _ = key;
    }

    /// The entry for `key`, if stored.
    #[inline]
    pub fn probe(&self, key: u64, ply: usize) -> Option<Hit<M>> {
        if self.entries.is_empty() {
            return None;
        }
        let e = self.entries[self.index(key)]?;
        (e.key == key && e.epoch == self.epoch).then(|| Hit {
            mv: e.mv,
            score: from_tt(e.score, ply),
            depth: i32::from(e.depth),
            bound: e.bound,
        })
    }

    /// Stores a result.
    #[inline]
    pub fn store(
        &mut self,
        key: u64,
        ply: usize,
        mv: Option<M>,
        score: i32,
        depth: i32,
        bound: Bound,
    ) {
        if self.entries.is_empty() {
            return;
        }
        let i = self.index(key);
        let depth = depth.clamp(i32::from(i16::MIN), i32::from(i16::MAX)) as i16;
        let replace = match &self.entries[i] {
            None => true,
            Some(old) if old.epoch != self.epoch => true,
            Some(old) => {
                old.age != self.age
                    || depth >= old.depth
                    || (old.key == key && bound == Bound::Exact)
            }
        };
        if replace {
            let keep_move = match &self.entries[i] {
                Some(old) if old.key == key && old.epoch == self.epoch && mv.is_none() => old.mv,
                _ => mv,
            };
            self.entries[i] = Some(Entry {
                key,
                mv: keep_move,
                score: to_tt(score, ply),
                depth,
                bound,
                age: self.age,
                epoch: self.epoch,
            });
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizes_past_the_machine_are_refused() {
        assert!(max_mb() >= 1 && max_mb() <= MAX_MB);
        let e = TranspositionTable::<u16>::try_new(MAX_MB as usize + 1).unwrap_err();
        assert!(e.contains("search.tt_mb = 65537"), "{e}");
        assert!(check_size(max_mb()).is_ok());
        assert!(check_size(max_mb() + 1).is_err());
        assert!(TranspositionTable::<u16>::try_new(1).unwrap().enabled());
    }

    #[test]
    fn clear_forgets_without_wiping_and_wraps_safely() {
        let mut tt: TranspositionTable<u16> = TranspositionTable::new(1);
        tt.store(42, 0, Some(7), 100, 3, Bound::Exact);
        assert_eq!(tt.probe(42, 0).map(|h| h.mv), Some(Some(7)));
        tt.clear();
        assert!(tt.probe(42, 0).is_none(), "a new game sees nothing");
        // A shallower store after the clear replaces the old game's deeper entry.
        tt.store(42, 0, Some(9), 5, 1, Bound::Lower);
        let hit = tt.probe(42, 0).unwrap();
        assert_eq!((hit.mv, hit.depth), (Some(9), 1));
        // Across a full wrap of the epoch, old entries never come back.
        tt.store(7, 0, Some(1), 1, 1, Bound::Exact);
        for _ in 0..=u16::MAX as usize {
            tt.clear();
        }
        assert!(tt.probe(7, 0).is_none());
        assert!(tt.probe(42, 0).is_none());
    }
}

//! The endgame solver's transposition table: a fixed array of entries in memory backed by huge pages where the
//! system offers them.
//!
//! The table (64 MB) is read at random, once or twice per node: with 4 KB pages nearly every read also misses the
//! TLB (a few thousand entries cover a few MB), and `perf` put half of the deep search's time on the prefetches of
//! the children's entries. Backed by 2 MB pages the solver is about 8% faster on FFO #40-#44
//! (docs/BENCHMARKS.md). On Linux with transparent huge pages in `madvise` mode (the common default) the memory
//! has to ask for them, hence an anonymous mapping and `madvise` (through `memmap2`) rather than a `Vec`.

use std::ops::{Deref, DerefMut};

use bytemuck::{Pod, Zeroable};

/// One slot: the bounds of a position's score, its best move and how they were found. All zeros is an empty slot
/// (the solver looks up only positions above its shallow search's empties, so no lookup matches zero empties).
#[derive(Clone, Copy, Default, Pod, Zeroable)]
#[repr(C)]
pub(crate) struct Entry {
    pub key: u64,
    pub lower: i8,
    pub upper: i8,
    pub best: u8,
    pub empties: u8,
    /// The selectivity the bounds were found at (the solver's `EXACT` for proven bounds): a search trusts only
    /// bounds found at its own selectivity or above, but takes the best move from any.
    pub level: u8,
    /// Explicit padding to 16 bytes (four entries per cache line), so that any bytes are a valid entry.
    pad: [u8; 3],
}

impl Entry {
    pub fn new(key: u64, lower: i8, upper: i8, best: u8, empties: u8, level: u8) -> Entry {
        Entry { key, lower, upper, best, empties, level, pad: [0; 3] }
    }
}

/// `len` entries, zeroed.
pub(crate) struct Table {
    storage: Storage,
}

enum Storage {
    Mapped(memmap2::MmapMut),
    /// Where the system refuses the mapping: plain memory, same results.
    Heap(Vec<Entry>),
}

impl Table {
    pub fn new(len: usize) -> Table {
        let bytes = len * size_of::<Entry>();
        let storage = match memmap2::MmapMut::map_anon(bytes) {
            Ok(map) => {
                // A hint: without huge pages the table works the same, slower.
                #[cfg(target_os = "linux")]
                let _ = map.advise(memmap2::Advice::HugePage);
                Storage::Mapped(map)
            }
            Err(_) => Storage::Heap(vec![Entry::default(); len]),
        };
        Table { storage }
    }

    /// Writes to every 4 KB page (each entry written back as it was), so that the system backs them all now.
    pub fn touch(&mut self) {
        let per_page = 4096 / size_of::<Entry>();
        for i in (0..self.len()).step_by(per_page) {
            // black_box: a store of the value just loaded could otherwise be dropped, leaving a mere read.
            self[i] = std::hint::black_box(self[i]);
        }
    }
}

impl Deref for Table {
    type Target = [Entry];
    #[inline(always)]
    fn deref(&self) -> &[Entry] {
        match &self.storage {
            // Page-aligned and a whole number of entries long, so the cast cannot fail.
            Storage::Mapped(map) => bytemuck::cast_slice(map),
            Storage::Heap(entries) => entries,
        }
    }
}

impl DerefMut for Table {
    #[inline(always)]
    fn deref_mut(&mut self) -> &mut [Entry] {
        match &mut self.storage {
            Storage::Mapped(map) => bytemuck::cast_slice_mut(map),
            Storage::Heap(entries) => entries,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_new_table_is_empty_and_keeps_what_is_written() {
        let mut table = Table::new(1 << 16);
        assert_eq!(table.len(), 1 << 16);
        assert!(table.iter().all(|e| e.key == 0 && e.empties == 0 && e.best == 0));
        table[12_345] = Entry::new(0xdead_beef, -3, 7, 19, 14, 5);
        let e = table[12_345];
        assert_eq!((e.key, e.lower, e.upper, e.best, e.empties, e.level), (0xdead_beef, -3, 7, 19, 14, 5));
        assert_eq!(size_of::<Entry>(), 16);
        table[256] = Entry::new(7, 1, 2, 3, 4, 5);
        table.touch();
        assert_eq!((table[256].key, table[256].best, table[12_345].key), (7, 3, 0xdead_beef));
    }
}

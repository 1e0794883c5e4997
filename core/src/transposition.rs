//! The endgame solver's transposition table: a fixed array of entries in memory backed by huge pages where the
//! system offers them, which the threads of one solve share without locks.
//!
//! The table (64 MB then, 16 MB now) is read at random, once or twice per node: with 4 KB pages nearly every read
//! also missed the TLB (a few thousand entries cover a few MB), and `perf` put half of the deep search's time on
//! the prefetches of the children's entries. Backed by 2 MB pages the solver is about 8% faster on FFO #40-#44
//! (docs/BENCHMARKS.md). On Linux with transparent huge pages in `madvise` mode (the common default) the memory
//! has to ask for them, hence an anonymous mapping and `madvise` (through `memmap2`) rather than a `Vec`.
//!
//! An entry is two 64-bit words, `key ^ data` and `data`, each read and written atomically (plain loads and
//! stores on x86): an entry torn by two threads writing it at once no longer matches its key, so a reader takes it
//! for a miss rather than trusting bounds of another position (the lockless hashing of Hyatt and Mann).

use std::sync::atomic::{AtomicU64, Ordering::Relaxed};

use zerocopy::FromBytes;

/// One slot: the bounds of a position's score, its best move and how they were found. All zeros is an empty slot
/// (the solver looks up only positions above its shallow search's empties, so no lookup matches zero empties).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct Entry {
    pub key: u64,
    pub lower: i8,
    pub upper: i8,
    pub best: u8,
    pub empties: u8,
    /// The selectivity the bounds were found at (the solver's `EXACT` for proven bounds): a search trusts only
    /// bounds found at its own selectivity or above, but takes the best move from any.
    pub level: u8,
}

impl Entry {
    pub fn new(key: u64, lower: i8, upper: i8, best: u8, empties: u8, level: u8) -> Entry {
        Entry { key, lower, upper, best, empties, level }
    }

    fn data(&self) -> u64 {
        u64::from_le_bytes([self.lower as u8, self.upper as u8, self.best, self.empties, self.level, 0, 0, 0])
    }

    fn from_words(key_xor_data: u64, data: u64) -> Entry {
        let [lower, upper, best, empties, level, ..] = data.to_le_bytes();
        Entry { key: key_xor_data ^ data, lower: lower as i8, upper: upper as i8, best, empties, level }
    }
}

/// The table's memory; [`Table::entries`] lends it out for a solve.
pub(crate) struct Table {
    storage: Storage,
}

enum Storage {
    Mapped(memmap2::MmapMut),
    /// Where the system refuses the mapping: plain memory, same results.
    Heap(Box<[AtomicU64]>),
}

impl Table {
    /// About `bytes` of entries, zeroed: a power of two of them, at least four (two buckets).
    pub fn with_bytes(bytes: usize) -> Table {
        let len = (bytes / (2 * size_of::<u64>())).max(4);
        Table::new(1 << len.ilog2())
    }

    /// `len` entries (a power of two), zeroed.
    pub fn new(len: usize) -> Table {
        debug_assert!(len.is_power_of_two());
        let words = 2 * len;
        let storage = match memmap2::MmapMut::map_anon(words * size_of::<u64>()) {
            Ok(map) => {
                // A hint: without huge pages the table works the same, slower.
                #[cfg(target_os = "linux")]
                let _ = map.advise(memmap2::Advice::HugePage);
                Storage::Mapped(map)
            }
            Err(_) => Storage::Heap((0..words).map(|_| AtomicU64::new(0)).collect()),
        };
        Table { storage }
    }

    /// The entries, to be shared by the threads of a solve.
    pub fn entries(&mut self) -> Entries<'_> {
        match &mut self.storage {
            // A page-aligned whole number of words: the view cannot fail.
            Storage::Mapped(map) => Entries(<[AtomicU64]>::mut_from_bytes(map).unwrap_or(&mut [])),
            Storage::Heap(words) => Entries(words),
        }
    }

    /// Writes to every 4 KB page (each word written back as it was), so that the system backs them all now.
    pub fn touch(&mut self) {
        let words = self.entries().0;
        for word in words.iter().step_by(4096 / size_of::<u64>()) {
            word.store(word.load(Relaxed), Relaxed);
        }
    }

    /// Empties every slot.
    pub fn clear(&mut self) {
        match &mut self.storage {
            Storage::Mapped(map) => map.fill(0),
            Storage::Heap(words) => words.iter_mut().for_each(|w| *w.get_mut() = 0),
        }
    }
}

/// The table's entries, borrowed for a solve: copied into each of its threads.
#[derive(Clone, Copy)]
pub(crate) struct Entries<'t>(&'t [AtomicU64]);

impl Entries<'_> {
    /// Entry `i`; a torn or empty slot reads as an entry no lookup matches.
    #[inline(always)]
    pub fn get(&self, i: usize) -> Entry {
        let words = &self.0[2 * i..2 * i + 2];
        Entry::from_words(words[0].load(Relaxed), words[1].load(Relaxed))
    }

    /// The first slot of `key`'s two-slot bucket.
    #[inline(always)]
    pub fn bucket(&self, key: u64) -> usize {
        // A power of two of entries, two words each: the mask keeps an even entry index.
        key as usize & (self.0.len() / 2 - 2)
    }

    /// The entry of the two-slot bucket starting at `bucket` whose key is `key`, else the second slot's (which a
    /// caller's key check then rejects).
    #[inline(always)]
    pub fn find(&self, bucket: usize, key: u64) -> Entry {
        let first = self.get(bucket);
        if first.key == key {
            first
        } else {
            self.get(bucket + 1)
        }
    }

    #[inline(always)]
    pub fn set(&self, i: usize, entry: Entry) {
        let data = entry.data();
        let words = &self.0[2 * i..2 * i + 2];
        words[1].store(data, Relaxed);
        words[0].store(entry.key ^ data, Relaxed);
    }

    /// The address of entry `i`, for a prefetch.
    #[inline(always)]
    pub fn slot(&self, i: usize) -> &AtomicU64 {
        &self.0[2 * i]
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_new_table_is_empty_keeps_what_is_written_and_clears() {
        let mut table = Table::new(1 << 16);
        let entries = table.entries();
        assert_eq!(entries.0.len(), 2 << 16);
        assert!((0..1 << 16).all(|i| entries.get(i) == Entry::default()));
        let e = Entry::new(0xdead_beef, -3, 7, 19, 14, 5);
        entries.set(12_345, e);
        assert_eq!(entries.get(12_345), e);
        entries.set(256, Entry::new(7, 1, 2, 3, 4, 5));
        table.touch();
        let entries = table.entries();
        assert_eq!((entries.get(256).best, entries.get(12_345)), (3, e));
        table.clear();
        let entries = table.entries();
        assert!((0..1 << 16).all(|i| entries.get(i) == Entry::default()));
    }

    #[test]
    fn a_table_of_a_size_in_bytes_has_a_power_of_two_of_entries_at_least_four() {
        for (bytes, entries) in [(16 << 20, 1 << 20), (3 << 20, 1 << 17), (100, 4), (0, 4)] {
            assert_eq!(Table::with_bytes(bytes).entries().0.len(), 2 * entries, "{bytes} bytes");
        }
    }

    #[test]
    fn an_entry_torn_between_two_writes_matches_neither_key() {
        let mut table = Table::new(4);
        let entries = table.entries();
        let (a, b) = (Entry::new(0x1234_5678, -64, 64, 0, 20, 5), Entry::new(0x9abc_def0, 2, 2, 37, 21, 0));
        entries.set(1, a);
        // The second writer's data word landed, its key word not yet.
        entries.0[3].store(b.data(), Relaxed);
        let torn = entries.get(1);
        assert!(torn.key != a.key && torn.key != b.key);
    }
}

//! Several threads on one solve (young brothers wait, as Edax): a node shares out its moves after the first,
//! once the first has not cut, among the idle threads of the solve, which share its table.

use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering::Relaxed, Ordering::SeqCst};
use std::sync::{Arc, Condvar, Mutex, MutexGuard, PoisonError};

use super::{Search, CHECK_EVERY};

/// A node's moves after its first, shared out among the threads of a solve (young brothers wait): each thread
/// takes the next move not yet taken, and a cut-off stops them all.
pub(super) struct Split {
    /// (square, child's player, child's opponent), best first.
    moves: Vec<(u8, u64, u64)>,
    next: AtomicUsize,
    beta: i32,
    level: u8,
    result: Mutex<SplitResult>,
    /// Set on a cut-off or an abort: the threads still searching its moves give up, and so do those searching
    /// split points below it.
    stop: AtomicBool,
    parent: Option<Arc<Split>>,
    /// Helpers searching its moves.
    helpers: AtomicUsize,
}

struct SplitResult {
    alpha: i32,
    best: i32,
    best_sq: u8,
}

impl Split {
    fn result(&self) -> MutexGuard<'_, SplitResult> {
        // A helper that panicked has left nothing half-written: bounds are plain numbers.
        self.result.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// The split point itself and those it lies under, innermost first.
    fn and_above(&self) -> impl Iterator<Item = &Split> {
        std::iter::successors(Some(self), |s| s.parent.as_deref())
    }

    /// Counts one more helper, if moves are left to take and no cut-off has stopped it.
    fn enlist(self: &Arc<Split>) -> Option<Arc<Split>> {
        if self.next.load(SeqCst) >= self.moves.len() || self.stop.load(SeqCst) {
            return None;
        }
        self.helpers.fetch_add(1, SeqCst);
        Some(self.clone())
    }
}

/// The helper threads of a solve: idle ones wait for a split point to be offered.
#[derive(Default)]
pub(super) struct Pool {
    offer: Mutex<Option<Arc<Split>>>,
    wake: Condvar,
    idle: AtomicUsize,
    /// Nodes the helpers have searched, added every [`CHECK_EVERY`] of their nodes and as each leaves a split point.
    nodes: AtomicU64,
    closed: AtomicBool,
}

impl Pool {
    fn offer(&self) -> MutexGuard<'_, Option<Arc<Split>>> {
        self.offer.lock().unwrap_or_else(PoisonError::into_inner)
    }

    fn publish(&self, split: &Arc<Split>) {
        *self.offer() = Some(split.clone());
        self.wake.notify_all();
    }

    fn withdraw(&self, split: &Arc<Split>) {
        let mut offer = self.offer();
        if offer.as_ref().is_some_and(|o| Arc::ptr_eq(o, split)) {
            *offer = None;
        }
    }

    pub(super) fn close(&self) {
        self.closed.store(true, SeqCst);
        let _offer = self.offer();
        self.wake.notify_all();
    }

    /// Waits for a split point with moves left to take; `None` once the solve is over.
    fn join(&self) -> Option<Arc<Split>> {
        let mut offer = self.offer();
        self.idle.fetch_add(1, SeqCst);
        let split = loop {
            if self.closed.load(SeqCst) {
                break None;
            }
            if let Some(split) = offer.as_ref().and_then(Split::enlist) {
                break Some(split);
            }
            offer = self.wake.wait(offer).unwrap_or_else(PoisonError::into_inner);
        };
        self.idle.fetch_sub(1, SeqCst);
        split
    }

    /// The offered split point, if it lies under `owner` and has moves left: work for a thread waiting for the
    /// helpers of `owner` (they offer it), which joins it as a helper.
    fn join_below(&self, owner: &Arc<Split>) -> Option<Arc<Split>> {
        let offer = self.offer();
        let split = offer.as_ref()?;
        let below = split.parent.as_deref()?.and_above().any(|s| std::ptr::eq(s, &**owner));
        if below {
            split.enlist()
        } else {
            None
        }
    }
}

impl<'a> Search<'a> {
    /// A helper thread's search: the same rules, no limits of its own (the first thread's abort stops it).
    pub(super) fn helper(&self, pool: &'a Pool) -> Search<'a> {
        Search {
            nodes: 0,
            next_check: CHECK_EVERY,
            node_limit: u64::MAX,
            deadline: None,
            progress: None,
            pool: Some(pool),
            split: None,
            helper: true,
            ..*self
        }
    }

    /// A helper thread: searches the moves of split points as they are offered, until the solve is over.
    pub(super) fn serve(mut self) {
        let Some(pool) = self.pool else { return };
        while let Some(split) = pool.join() {
            self.level = split.level;
            self.split = Some(split.clone());
            self.search_split(&split);
            self.split = None;
            self.hand_over_nodes();
            split.helpers.fetch_sub(1, SeqCst);
        }
    }

    /// Whether a cut-off elsewhere has made this thread's current work useless.
    #[inline(always)]
    pub(super) fn halted(&self) -> bool {
        self.split.as_deref().is_some_and(|split| split.and_above().any(|s| s.stop.load(Relaxed)))
    }

    /// Whether a node may share out its remaining moves now.
    #[inline(always)]
    pub(super) fn can_split(&self) -> bool {
        self.pool.is_some_and(|pool| pool.idle.load(Relaxed) > 0)
    }

    /// Searches `moves` (a node's moves after its first, best first) within (alpha, beta) with the idle threads;
    /// returns the best score and move, `best` and `best_sq` if none beats them.
    pub(super) fn share_out(
        &mut self,
        moves: Vec<(u8, u64, u64)>,
        alpha: i32,
        beta: i32,
        best: i32,
        best_sq: u8,
    ) -> (i32, u8) {
        let Some(pool) = self.pool else { return (best, best_sq) };
        let split = Arc::new(Split {
            moves,
            next: AtomicUsize::new(0),
            beta,
            level: self.level,
            result: Mutex::new(SplitResult { alpha, best, best_sq }),
            stop: AtomicBool::new(false),
            parent: self.split.clone(),
            helpers: AtomicUsize::new(0),
        });
        pool.publish(&split);
        let outer = self.split.replace(split.clone());
        self.search_split(&split);
        pool.withdraw(&split);
        // Waiting for the helpers still searching, help them: count as idle, so that they split, and join the
        // split points they offer.
        pool.idle.fetch_add(1, SeqCst);
        while split.helpers.load(SeqCst) > 0 {
            if self.aborted {
                split.stop.store(true, SeqCst);
            }
            if let Some(below) = pool.join_below(&split) {
                let level = std::mem::replace(&mut self.level, below.level);
                self.split = Some(below.clone());
                self.search_split(&below);
                (self.level, self.split) = (level, Some(split.clone()));
                below.helpers.fetch_sub(1, SeqCst);
            } else {
                std::thread::yield_now();
            }
        }
        pool.idle.fetch_sub(1, SeqCst);
        self.split = outer;
        let result = split.result();
        (result.best, result.best_sq)
    }

    /// Takes the moves of `split` one by one until none is left or a cut-off stops it.
    fn search_split(&mut self, split: &Split) {
        loop {
            if self.aborted || self.halted() {
                return;
            }
            let Some(&(sq, cp, co)) = split.moves.get(split.next.fetch_add(1, SeqCst)) else { return };
            let alpha = split.result().alpha;
            let mut v = -self.search(cp, co, -alpha - 1, -alpha);
            if v > alpha && v < split.beta && !self.halted() {
                v = -self.search(cp, co, -split.beta, -v);
            }
            if self.aborted || self.halted() {
                return;
            }
            let mut result = split.result();
            if v > result.best {
                (result.best, result.best_sq) = (v, sq);
                result.alpha = result.alpha.max(v);
                if v >= split.beta {
                    split.stop.store(true, SeqCst);
                }
            }
        }
    }

    /// Adds a helper's nodes to the pool's count.
    pub(super) fn hand_over_nodes(&mut self) {
        if let Some(pool) = self.pool {
            pool.nodes.fetch_add(std::mem::take(&mut self.nodes), SeqCst);
        }
    }

    /// Nodes searched by all the solve's threads (on the first thread; a helper's own are in the pool's count).
    pub(super) fn total_nodes(&self) -> u64 {
        self.nodes + self.pool.map_or(0, |pool| pool.nodes.load(SeqCst))
    }
}

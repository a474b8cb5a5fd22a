//! The lock every module puts its state behind.
//!
//! A spin lock that yields: taking it is one compare-and-swap, releasing it
//! one plain store (std's futex mutex releases with an atomic swap, a
//! measurable part of a wrapper's cost). No allocation, no thread-local,
//! no poisoning. Held for the few hundred instructions of a record
//! update. Two exceptions cross system calls: a new record whose pages of
//! the crash-safe file have no storage yet makes or grows the file under
//! the module's lock (logmap::room: open, write zeros, close; at the
//! module's first record and then once per 64 KiB of records, tens of
//! microseconds), and a handle table three quarters full doubles under
//! it (HandleTable::grow: a mapping made, one given back; a handful of
//! times in a process's life, if ever). A waiter that does not get the
//! lock at once yields the CPU, which keeps 8 threads on 2 cores fair.
//!
//! The live view (docs/live.md): once a module's lock is published
//! ([`Lock::publish`], at attach), taking it writes an odd number into the
//! module's sequence word in the crash-safe file and releasing it the next
//! even one, so that a reader in another process copies the module's
//! records between two equal even readings, never in the middle of an
//! update (a seqlock whose writer side is the lock the update takes
//! anyway: two plain stores more per locked call).

use std::sync::atomic::{fence, AtomicBool, AtomicU64, Ordering};
use std::sync::OnceLock;

/// Set in a forked child from fork's return until it has its own
/// crash-safe mapping: until then the sequence words are its parent's
/// file, and a guard taken before the fork (released in the child) or in
/// the child's set-up must not write them (the parent may be inside an
/// update by then). A static of the child's own (copy-on-write) memory.
static FORKED_CHILD: AtomicBool = AtomicBool::new(false);

/// The fork wrapper, in the child: `true` at once, `false` once the child
/// has its own crash-safe mapping.
pub fn forked_child(on: bool) {
    FORKED_CHILD.store(on, Ordering::Relaxed);
}

pub struct Lock<T> {
    inner: spin::mutex::SpinMutex<T, spin::relax::Yield>,
    /// The module's sequence word in the crash-safe file.
    live: OnceLock<&'static AtomicU64>,
    /// Lock cycles so far (changed only while the lock is held): the
    /// sequence word is written from it, so a store the file missed (its
    /// mapping replaced at that moment) is made good by the next cycle.
    cycles: AtomicU64,
}

pub struct LockGuard<'a, T> {
    guard: spin::mutex::SpinMutexGuard<'a, T>,
    /// The sequence word and the even value to leave in it.
    live: Option<(&'static AtomicU64, u64)>,
}

impl<T> Lock<T> {
    pub const fn new(value: T) -> Lock<T> {
        Lock { inner: spin::mutex::SpinMutex::new(value), live: OnceLock::new(), cycles: AtomicU64::new(0) }
    }

    #[inline]
    pub fn lock(&self) -> LockGuard<'_, T> {
        self.guarded(self.inner.lock())
    }

    #[inline]
    fn guarded<'a>(&'a self, guard: spin::mutex::SpinMutexGuard<'a, T>) -> LockGuard<'a, T> {
        let live = self.live.get().filter(|_| !FORKED_CHILD.load(Ordering::Relaxed)).map(|w| {
            let n = self.cycles.load(Ordering::Relaxed) + 1;
            self.cycles.store(n, Ordering::Relaxed);
            w.store(2 * n - 1, Ordering::Relaxed);
            // The odd value is visible before any record word changes.
            fence(Ordering::Release);
            (*w, 2 * n)
        });
        LockGuard { guard, live }
    }

    pub fn is_locked(&self) -> bool {
        self.inner.is_locked()
    }

    /// From now on, say in `word` when the lock is held (the first
    /// publication stays).
    pub fn publish(&self, word: &'static AtomicU64) {
        let _ = self.live.set(word);
    }
}

impl<T> std::ops::Deref for LockGuard<'_, T> {
    type Target = T;
    #[inline]
    fn deref(&self) -> &T {
        &self.guard
    }
}

impl<T> std::ops::DerefMut for LockGuard<'_, T> {
    #[inline]
    fn deref_mut(&mut self) -> &mut T {
        &mut self.guard
    }
}

impl<T> Drop for LockGuard<'_, T> {
    #[inline]
    fn drop(&mut self) {
        // Before the lock itself is released (the guard field drops after
        // this): every record word written is visible before the even value.
        if let Some((w, even)) = self.live.filter(|_| !FORKED_CHILD.load(Ordering::Relaxed)) {
            w.store(even, Ordering::Release);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A forked child released the guards taken for the fork into its
    /// parent's file (still mapped under it): a late even value there
    /// would tell a reader the parent's lock was free while the parent was
    /// inside an update. In the child, neither taking nor releasing a lock
    /// writes the word.
    /// (Called from the test below: the flag is process-wide, and tests
    /// run on parallel threads.)
    fn a_forked_child_never_writes_its_parents_sequence_words() {
        static WORD: AtomicU64 = AtomicU64::new(0);
        static L: Lock<u32> = Lock::new(0);
        L.publish(&WORD);
        let before_fork = L.lock();
        assert_eq!(WORD.load(Ordering::Relaxed), 1);
        forked_child(true);
        drop(before_fork);
        drop(L.lock());
        let seen = WORD.load(Ordering::Relaxed);
        forked_child(false);
        assert_eq!(seen, 1, "the child wrote the parent's word");
        drop(L.lock());
        assert_eq!(WORD.load(Ordering::Relaxed) % 2, 0, "its own again once it has its own file");
    }

    #[test]
    fn a_published_lock_is_odd_while_held_and_even_after() {
        static WORD: AtomicU64 = AtomicU64::new(0);
        static L: Lock<u32> = Lock::new(0);
        {
            let mut g = L.lock();
            *g += 1;
            assert_eq!(WORD.load(Ordering::Relaxed), 0, "not published yet: untouched");
        }
        L.publish(&WORD);
        for k in 1..=3u64 {
            let g = L.lock();
            assert_eq!(WORD.load(Ordering::Relaxed), 2 * k - 1);
            drop(g);
            assert_eq!(WORD.load(Ordering::Relaxed), 2 * k);
        }
        // A store the file missed is made good by the next cycle.
        WORD.store(5, Ordering::Relaxed);
        drop(L.lock());
        assert_eq!(WORD.load(Ordering::Relaxed), 8);
        a_forked_child_never_writes_its_parents_sequence_words();
    }
}

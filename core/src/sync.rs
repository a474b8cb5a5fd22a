//! The lock every module puts its state behind.
//!
//! A spin lock that yields: taking it is one compare-and-swap, releasing it
//! one plain store (std's futex mutex releases with an atomic swap, a
//! measurable part of a wrapper's cost). No allocation, no thread-local,
//! no poisoning. Held for the few hundred instructions of a record
//! update. One exception crosses system calls: a new record whose pages of
//! the crash-safe file have no storage yet makes or grows the file under
//! the module's lock (logmap::room: open, write zeros, close; at the
//! module's first record and then once per 64 KiB of records, tens of
//! microseconds). A waiter that does not get the lock at once yields the
//! CPU, which keeps 8 threads on 2 cores fair.

pub type Lock<T> = spin::mutex::SpinMutex<T, spin::relax::Yield>;
pub type LockGuard<'a, T> = spin::mutex::SpinMutexGuard<'a, T>;

//! The lock every module puts its state behind.
//!
//! A spin lock that yields: taking it is one compare-and-swap, releasing it
//! one plain store (std's futex mutex releases with an atomic swap, a
//! measurable part of a wrapper's cost). No allocation, no thread-local,
//! no poisoning. Held only for the few hundred instructions of a record
//! update, never across a system call; a waiter that does not get it at
//! once yields the CPU, which keeps 8 threads on 2 cores fair.

pub type Lock<T> = spin::mutex::SpinMutex<T, spin::relax::Yield>;
pub type LockGuard<'a, T> = spin::mutex::SpinMutexGuard<'a, T>;

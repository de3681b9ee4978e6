//! The engine's one way to take a lock.

use std::sync::{Mutex, MutexGuard, PoisonError};

/// Locks a mutex of the engine. Nothing panics while holding one; a poisoned lock still holds
/// usable state.
pub(crate) fn lock<T>(mutex: &Mutex<T>) -> MutexGuard<'_, T> {
    mutex.lock().unwrap_or_else(PoisonError::into_inner)
}

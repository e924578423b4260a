//! Memory care for huge records (a 100 MB tool result): the binary's
//! allocator (mimalloc) keeps freed blocks for reuse, which is right for a
//! stream of small records and wrong right after a 100 MB one.

/// Lines and payloads above this size get the care below.
pub const HUGE: usize = 1 << 24;

/// Returns freed memory to the system.
#[allow(unsafe_code)] // the crate's one unsafe call: mimalloc's collect hook
pub fn release() {
    // SAFETY: mi_collect only frees what is no longer in use; it is a no-op
    // for memory mimalloc does not manage.
    unsafe { libmimalloc_sys::mi_collect(true) };
}

//! Turns a fault on a mapped table into a one-line error and exit status 2.
//!
//! When a mapped file shrinks, touching a page past its new end raises SIGBUS,
//! which would kill the process. Each mapped table registers its address range
//! and a pre-formatted message here; the handler, if the faulting address lies
//! in a registered range, writes that message to stderr and calls `_exit(2)`.
//! Any other SIGBUS goes to the handler that was installed before (Rust's own
//! stack-overflow handler, or the default action).

use std::io;

/// A registered mapping; unregisters when dropped.
pub(crate) struct Guard {
    #[cfg(target_os = "linux")]
    slot: usize,
}

#[cfg(target_os = "linux")]
mod imp {
    use std::io;
    use std::mem::MaybeUninit;
    use std::ptr;
    use std::sync::Once;
    use std::sync::atomic::{AtomicPtr, AtomicU8, AtomicUsize, Ordering};

    /// How many tables can be mapped at once.
    pub(super) const SLOTS: usize = 64;

    const FREE: u8 = 0;
    const BUSY: u8 = 1;
    const ACTIVE: u8 = 2;

    /// One mapped range and its message; read by the handler only when ACTIVE.
    struct Slot {
        state: AtomicU8,
        start: AtomicUsize,
        len: AtomicUsize,
        message: AtomicPtr<u8>,
        message_len: AtomicUsize,
    }

    #[allow(clippy::declare_interior_mutable_const)]
    const EMPTY: Slot = Slot {
        state: AtomicU8::new(FREE),
        start: AtomicUsize::new(0),
        len: AtomicUsize::new(0),
        message: AtomicPtr::new(ptr::null_mut()),
        message_len: AtomicUsize::new(0),
    };

    static REGISTRY: [Slot; SLOTS] = [EMPTY; SLOTS];
    static INSTALL: Once = Once::new();
    /// The action replaced by ours; written once, before ours is installed.
    static mut PREVIOUS: MaybeUninit<libc::sigaction> = MaybeUninit::uninit();
    static INSTALLED: AtomicU8 = AtomicU8::new(0);

    fn install() -> io::Result<()> {
        INSTALL.call_once(|| {
            // SAFETY: plain libc calls on zeroed, then filled, sigaction structs;
            // PREVIOUS is written here only, before the handler can run.
            unsafe {
                let mut action: libc::sigaction = std::mem::zeroed();
                action.sa_sigaction = handler as *const () as libc::sighandler_t;
                action.sa_flags = libc::SA_SIGINFO | libc::SA_ONSTACK;
                libc::sigemptyset(&mut action.sa_mask);
                let previous = &raw mut PREVIOUS;
                if libc::sigaction(libc::SIGBUS, &action, (*previous).as_mut_ptr()) == 0 {
                    INSTALLED.store(1, Ordering::Release);
                }
            }
        });
        if INSTALLED.load(Ordering::Acquire) == 1 {
            Ok(())
        } else {
            Err(io::Error::other("could not install the SIGBUS handler"))
        }
    }

    pub(super) fn register(start: usize, len: usize, message: Vec<u8>) -> io::Result<usize> {
        install()?;
        for (index, slot) in REGISTRY.iter().enumerate() {
            if slot
                .state
                .compare_exchange(FREE, BUSY, Ordering::Acquire, Ordering::Relaxed)
                .is_ok()
            {
                let message = Box::leak(message.into_boxed_slice());
                slot.start.store(start, Ordering::Relaxed);
                slot.len.store(len, Ordering::Relaxed);
                slot.message_len.store(message.len(), Ordering::Relaxed);
                slot.message.store(message.as_mut_ptr(), Ordering::Relaxed);
                slot.state.store(ACTIVE, Ordering::Release);
                return Ok(index);
            }
        }
        Err(io::Error::other(format!(
            "more than {SLOTS} tables mapped at once"
        )))
    }

    pub(super) fn unregister(index: usize) {
        let slot = &REGISTRY[index];
        slot.state.store(BUSY, Ordering::Release);
        let message = slot.message.swap(ptr::null_mut(), Ordering::Relaxed);
        let len = slot.message_len.load(Ordering::Relaxed);
        if !message.is_null() {
            // SAFETY: the pointer and length came from the Box leaked in `register`.
            drop(unsafe { Box::from_raw(ptr::slice_from_raw_parts_mut(message, len)) });
        }
        slot.state.store(FREE, Ordering::Release);
    }

    /// Async-signal-safe: atomics, write(2), _exit(2) and sigaction(2) only.
    extern "C" fn handler(
        signal: libc::c_int,
        info: *mut libc::siginfo_t,
        context: *mut libc::c_void,
    ) {
        // SAFETY: the kernel passes a valid siginfo for an SA_SIGINFO handler.
        let address = unsafe { (*info).si_addr() } as usize;
        for slot in &REGISTRY {
            if slot.state.load(Ordering::Acquire) != ACTIVE {
                continue;
            }
            let start = slot.start.load(Ordering::Relaxed);
            let len = slot.len.load(Ordering::Relaxed);
            if address >= start && address - start < len {
                let message = slot.message.load(Ordering::Relaxed);
                let mut left = slot.message_len.load(Ordering::Relaxed);
                let mut at = message as *const u8;
                // SAFETY: the message stays allocated while its slot is ACTIVE.
                unsafe {
                    while left > 0 {
                        let written = libc::write(2, at.cast(), left);
                        if written <= 0 {
                            break;
                        }
                        at = at.add(written as usize);
                        left -= written as usize;
                    }
                    libc::_exit(2);
                }
            }
        }
        // Not ours: hand over to whoever handled SIGBUS before.
        // SAFETY: PREVIOUS was filled before this handler was installed.
        unsafe {
            let previous: *const MaybeUninit<libc::sigaction> = &raw const PREVIOUS;
            let previous = (*previous).assume_init_ref();
            let action = previous.sa_sigaction;
            if action == libc::SIG_DFL || action == libc::SIG_IGN {
                // Back to the default: returning re-runs the access, which then kills.
                let mut default: libc::sigaction = std::mem::zeroed();
                default.sa_sigaction = libc::SIG_DFL;
                libc::sigaction(libc::SIGBUS, &default, ptr::null_mut());
            } else if previous.sa_flags & libc::SA_SIGINFO != 0 {
                let chained: extern "C" fn(libc::c_int, *mut libc::siginfo_t, *mut libc::c_void) =
                    std::mem::transmute(action);
                chained(signal, info, context);
            } else {
                let chained: extern "C" fn(libc::c_int) = std::mem::transmute(action);
                chained(signal);
            }
        }
    }
}

impl Guard {
    /// Registers `len` mapped bytes at `start`; a fault there prints `message` and exits 2.
    #[cfg(target_os = "linux")]
    pub(crate) fn register(start: *const u8, len: usize, message: String) -> io::Result<Guard> {
        let slot = imp::register(start as usize, len, message.into_bytes())?;
        Ok(Guard { slot })
    }

    /// Without a handler on this system, a fault stays fatal.
    #[cfg(not(target_os = "linux"))]
    pub(crate) fn register(_: *const u8, _: usize, _: String) -> io::Result<Guard> {
        Ok(Guard {})
    }
}

impl Drop for Guard {
    fn drop(&mut self) {
        #[cfg(target_os = "linux")]
        imp::unregister(self.slot);
    }
}

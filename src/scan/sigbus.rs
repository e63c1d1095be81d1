//! Memory maps that survive their file being cut. A read through a map of a
//! file that another program truncates faults at the first page past the new
//! end, and the kernel's answer, SIGBUS, kills the process (143 of 180
//! trials on a 67 MB transcript before this module). Here a SIGBUS whose
//! address lies in one of csift's own maps is answered by mapping zero pages
//! over the rest of that map and marking it cut; the faulting read then
//! resumes and sees zeros, and the map's owner reports the file as changed
//! while reading ([`Guard::is_cut`]) instead of trusting what it read. A
//! SIGBUS anywhere else goes to the handler that was there before (Rust's
//! own stack-overflow check) or to the default action, as without this.
//!
//! Nothing jumps out of the handler: a `sigsetjmp`/`siglongjmp` escape would
//! skip Rust frames and their destructors, which is undefined behaviour. The
//! handler only loads atomics and calls `mmap`, a system call with no lock
//! in user space, so it is safe wherever the fault happens.
//!
//! Why maps are kept at all, when a plain read cannot fault: on the
//! benchmark machine the page faults of fresh memory for a large read cost
//! more than the read (a 336 MB transcript: 0.25 s of system time read, 0.05
//! s mapped), which took `search` on the generated home from 0.8x to 1.8x
//! `rg` (bench/NOTES.md, "SIGBUS and the read path").

use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::OnceLock;

/// Maps live at once (one per rayon worker and a few per command): a map
/// that finds no free slot is not made, and the file is read instead.
const SLOTS: usize = 256;

struct Slot {
    start: AtomicUsize,
    end: AtomicUsize,
    cut: AtomicBool,
}

static TABLE: [Slot; SLOTS] = [const {
    Slot {
        start: AtomicUsize::new(0),
        end: AtomicUsize::new(0),
        cut: AtomicBool::new(false),
    }
}; SLOTS];
/// The page size, read once before the handler is installed.
static PAGE: AtomicUsize = AtomicUsize::new(0);
/// What SIGBUS did before this handler: a non-matching fault is handed on.
static PREVIOUS: OnceLock<libc::sigaction> = OnceLock::new();
/// Whether the handler is in place (`false` if installing it failed).
static INSTALLED: OnceLock<bool> = OnceLock::new();

/// A registered map: its bytes `start..end` are guarded until it is dropped.
pub(crate) struct Guard {
    slot: usize,
}

impl Guard {
    /// Guard the mapped bytes `start..start + len`; `None` when the handler
    /// could not be installed or every slot is taken (then do not map).
    pub(crate) fn new(start: *const u8, len: usize) -> Option<Guard> {
        if !install() || len == 0 {
            return None;
        }
        let start = start as usize;
        for (i, s) in TABLE.iter().enumerate() {
            if s.start
                .compare_exchange(0, start, Ordering::AcqRel, Ordering::Relaxed)
                .is_ok()
            {
                s.cut.store(false, Ordering::Release);
                s.end.store(start + len, Ordering::Release);
                return Some(Guard { slot: i });
            }
        }
        None
    }

    /// Whether a read faulted past the file's end, so part of what the map
    /// showed is zeros and not the file.
    pub(crate) fn is_cut(&self) -> bool {
        TABLE[self.slot].cut.load(Ordering::Acquire)
    }
}

impl Drop for Guard {
    fn drop(&mut self) {
        let s = &TABLE[self.slot];
        s.end.store(0, Ordering::Release);
        s.start.store(0, Ordering::Release);
    }
}

/// Install the handler once; whether it is in place.
fn install() -> bool {
    *INSTALLED.get_or_init(|| {
        // SAFETY: sysconf and sigaction are called with valid arguments; the
        // handler below is async-signal-safe (atomics and mmap only).
        unsafe {
            let page = libc::sysconf(libc::_SC_PAGESIZE);
            if page <= 0 {
                return false;
            }
            PAGE.store(page as usize, Ordering::Release);
            let mut old: libc::sigaction = std::mem::zeroed();
            let mut new: libc::sigaction = std::mem::zeroed();
            new.sa_sigaction = on_sigbus as *const () as libc::sighandler_t;
            new.sa_flags = libc::SA_SIGINFO | libc::SA_ONSTACK;
            libc::sigemptyset(&mut new.sa_mask);
            // The previous action is stored before the new one can run.
            if libc::sigaction(libc::SIGBUS, std::ptr::null(), &mut old) != 0 {
                return false;
            }
            let _ = PREVIOUS.set(old);
            libc::sigaction(libc::SIGBUS, &new, std::ptr::null_mut()) == 0
        }
    })
}

#[cfg(any(target_os = "linux", target_os = "android"))]
unsafe fn fault_address(info: *mut libc::siginfo_t) -> usize {
    (*info).si_addr() as usize
}

#[cfg(not(any(target_os = "linux", target_os = "android")))]
unsafe fn fault_address(info: *mut libc::siginfo_t) -> usize {
    (*info).si_addr as usize
}

extern "C" fn on_sigbus(sig: libc::c_int, info: *mut libc::siginfo_t, ctx: *mut libc::c_void) {
    // SAFETY: the kernel passes a valid siginfo for an SA_SIGINFO handler.
    let addr = unsafe { fault_address(info) };
    let page = PAGE.load(Ordering::Acquire);
    for s in &TABLE {
        let start = s.start.load(Ordering::Acquire);
        let end = s.end.load(Ordering::Acquire);
        if start == 0 || addr < start || addr >= end || page == 0 {
            continue;
        }
        // Zero pages from the faulting page to the map's end: the read
        // resumes, and every later read past the cut sees zeros too.
        let from = addr & !(page - 1);
        let to = (end + page - 1) & !(page - 1);
        // SAFETY: `from..to` lies inside a live map this process made and
        // owns (its slot is cleared before it is unmapped); MAP_FIXED
        // replaces those pages and nothing else.
        let p = unsafe {
            libc::mmap(
                from as *mut libc::c_void,
                to - from,
                libc::PROT_READ,
                libc::MAP_PRIVATE | libc::MAP_ANONYMOUS | libc::MAP_FIXED,
                -1,
                0,
            )
        };
        if p != libc::MAP_FAILED {
            s.cut.store(true, Ordering::Release);
            return;
        }
    }
    previous(sig, info, ctx);
}

/// Hand a fault that is not csift's on to the action that was there before;
/// with none, restore the default and return, so the read faults again and
/// the process ends as it would have without this handler.
fn previous(sig: libc::c_int, info: *mut libc::siginfo_t, ctx: *mut libc::c_void) {
    let Some(old) = PREVIOUS.get() else {
        return default(sig);
    };
    let h = old.sa_sigaction;
    if h == libc::SIG_DFL || h == libc::SIG_IGN {
        return default(sig);
    }
    // SAFETY: `h` is the handler the process installed before, called the
    // way its flags say it expects.
    unsafe {
        if old.sa_flags & libc::SA_SIGINFO != 0 {
            let f = std::mem::transmute::<
                libc::sighandler_t,
                extern "C" fn(libc::c_int, *mut libc::siginfo_t, *mut libc::c_void),
            >(h);
            f(sig, info, ctx);
        } else {
            let f = std::mem::transmute::<libc::sighandler_t, extern "C" fn(libc::c_int)>(h);
            f(sig);
        }
    }
}

fn default(sig: libc::c_int) {
    // SAFETY: signal(2) with SIG_DFL is async-signal-safe.
    unsafe {
        libc::signal(sig, libc::SIG_DFL);
    }
}

//! Ctrl-C, SIGTERM and SIGHUP as they arrive, with the process that sent each, so that
//! one signal sent twice counts once. GNU `timeout` (and other tools that stop a job)
//! signals the process it started and then that process's whole group, arena in it: two
//! SIGTERMs from one sender a moment apart are one request to stop, not the "second
//! Ctrl-C" that quits at once. A terminal's Ctrl-C comes from the kernel, once per key
//! press, so a second press still counts.
//!
//! The handler only notes the signal into a pipe (async-signal-safe calls alone); a
//! thread reads the notes and calls the job's function.

use std::{
    io,
    sync::{
        Arc, Mutex, OnceLock,
        atomic::{AtomicBool, AtomicI32, Ordering},
    },
    time::Duration,
};

/// One signal as it arrived.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Arrival {
    /// The signal's number.
    pub signal: i32,
    /// The process that sent it (`kill`, `sigqueue`), or `None` when the kernel did (a
    /// terminal's Ctrl-C, a closed terminal's SIGHUP).
    pub sender: Option<i32>,
    /// When it arrived, on the monotonic clock.
    pub at: Duration,
}

/// How far apart the copies of one request can arrive: a sender signals the process and
/// its group in two calls, microseconds apart.
const ONE_REQUEST: Duration = Duration::from_secs(5);

impl Arrival {
    /// Whether this is `first` again: the same signal from the same process, soon
    /// after, as one request sent to a process and to its group arrives.
    pub fn repeats(&self, first: &Arrival) -> bool {
        self.signal == first.signal
            && self.sender.is_some()
            && self.sender == first.sender
            && self.at.saturating_sub(first.at) < ONE_REQUEST
    }
}

/// The pipe's write end, for the handler (-1 before [`install`]).
static NOTES: AtomicI32 = AtomicI32::new(-1);

/// A note in the pipe: signal, si_code, sender pid, nanoseconds.
const NOTE: usize = 4 * 8;

extern "C" fn on_signal(signal: libc::c_int, info: *mut libc::siginfo_t, _: *mut libc::c_void) {
    // Only async-signal-safe calls here, and errno as it was.
    let errno = errno_location();
    // SAFETY: errno_location points at this thread's errno.
    let saved = unsafe { *errno };
    let mut now = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // SAFETY: clock_gettime writes into the local timespec.
    unsafe {
        libc::clock_gettime(libc::CLOCK_MONOTONIC, &mut now);
    }
    let (code, pid) = if info.is_null() {
        (libc::SI_KERNEL, 0)
    } else {
        // SAFETY: the kernel passes a valid siginfo_t to an SA_SIGINFO handler.
        unsafe { ((*info).si_code, (*info).si_pid()) }
    };
    // time_t and c_long are 32 bits on some targets.
    #[allow(clippy::unnecessary_cast)]
    let nanos = (now.tv_sec as i64)
        .saturating_mul(1_000_000_000)
        .saturating_add(now.tv_nsec as i64);
    let note: [i64; 4] = [i64::from(signal), i64::from(code), i64::from(pid), nanos];
    let fd = NOTES.load(Ordering::Relaxed);
    if fd >= 0 {
        // SAFETY: write(2) from a local buffer of NOTE bytes; a pipe write of at most
        // PIPE_BUF bytes is atomic, so the reader sees whole notes.
        unsafe {
            libc::write(fd, note.as_ptr().cast(), NOTE);
        }
    }
    // SAFETY: as above.
    unsafe {
        *errno = saved;
    }
}

fn errno_location() -> *mut libc::c_int {
    // SAFETY: returns the calling thread's errno; async-signal-safe.
    unsafe { libc::__errno_location() }
}

/// Catches SIGINT, SIGTERM and SIGHUP from now on: `handler` is called with each, in
/// order, on a thread of its own.
pub(crate) fn install(mut handler: impl FnMut(Arrival) + Send + 'static) -> io::Result<()> {
    let mut fds = [0; 2];
    // SAFETY: pipe2 fills the two descriptors; close-on-exec, so engines do not inherit
    // them.
    if unsafe { libc::pipe2(fds.as_mut_ptr(), libc::O_CLOEXEC) } != 0 {
        return Err(io::Error::last_os_error());
    }
    let (read_end, write_end) = (fds[0], fds[1]);
    // The handler must never block: past 2,048 unread notes, later ones are dropped.
    // SAFETY: fcntl on the descriptor just made.
    unsafe {
        let flags = libc::fcntl(write_end, libc::F_GETFL);
        libc::fcntl(write_end, libc::F_SETFL, flags | libc::O_NONBLOCK);
    }
    NOTES.store(write_end, Ordering::SeqCst);
    std::thread::Builder::new()
        .name("signals".into())
        .spawn(move || {
            loop {
                let mut note = [0i64; 4];
                let mut got = 0;
                while got < NOTE {
                    // SAFETY: read(2) into the rest of the local buffer.
                    let n = unsafe {
                        libc::read(
                            read_end,
                            note.as_mut_ptr().cast::<u8>().add(got).cast(),
                            NOTE - got,
                        )
                    };
                    match n {
                        n if n > 0 => got += n as usize,
                        -1 if io::Error::last_os_error().kind() == io::ErrorKind::Interrupted => {}
                        _ => return,
                    }
                }
                let [signal, code, pid, nanos] = note;
                // si_code <= 0: sent by a process (SI_USER, SI_QUEUE, SI_TKILL, ...).
                let sender = (code <= 0 && pid > 0).then_some(pid as i32);
                handler(Arrival {
                    signal: signal as i32,
                    sender,
                    at: Duration::from_nanos(nanos.max(0) as u64),
                });
            }
        })?;
    for signal in [libc::SIGINT, libc::SIGTERM, libc::SIGHUP] {
        // SAFETY: a zeroed sigaction is valid; the handler has the SA_SIGINFO signature
        // and calls only async-signal-safe functions.
        unsafe {
            let mut action: libc::sigaction = std::mem::zeroed();
            action.sa_sigaction = on_signal as *const () as libc::sighandler_t;
            action.sa_flags = libc::SA_SIGINFO | libc::SA_RESTART;
            libc::sigemptyset(&mut action.sa_mask);
            if libc::sigaction(signal, &action, std::ptr::null_mut()) != 0 {
                return Err(io::Error::last_os_error());
            }
        }
    }
    Ok(())
}

/// What the first Ctrl-C says the job does now.
static STOPPING: Mutex<&str> = Mutex::new("stopping");

/// The process's stop flag. The first call installs the handler: the first Ctrl-C (or
/// SIGTERM, or SIGHUP: a scheduler's or a closed terminal's way to stop a job) raises
/// the flag and says what the job does (`stopping`, as the latest caller put it); the
/// job finishes what it must and exits 130. A second one exits at once, killing every
/// outside engine first; the first signal again from the same sender is not a second
/// one (`timeout` signals arena and then its process group: see [`install`]).
/// Every later call returns the same flag, so a job of many steps (a sweep's points, a
/// tune's verification) stops wherever it is.
pub(crate) fn stop_flag(stopping: &'static str) -> Arc<AtomicBool> {
    *STOPPING.lock().unwrap_or_else(|p| p.into_inner()) = stopping;
    static STOP: OnceLock<Arc<AtomicBool>> = OnceLock::new();
    Arc::clone(STOP.get_or_init(|| {
        let stop = Arc::new(AtomicBool::new(false));
        let flag = Arc::clone(&stop);
        let mut first: Option<Arrival> = None;
        let result = install(move |arrival| match &first {
            None => {
                first = Some(arrival);
                flag.store(true, Ordering::SeqCst);
                let what = *STOPPING.lock().unwrap_or_else(|p| p.into_inner());
                eprintln!("\narena: {what} (Ctrl-C again to quit now)");
            }
            Some(request) if arrival.repeats(request) => {}
            Some(_) => {
                arena::protocol::client::process::kill_all();
                std::process::exit(i32::from(super::EXIT_INTERRUPTED));
            }
        });
        if let Err(e) = result {
            eprintln!("arena: warning: cannot catch Ctrl-C: {e}");
        }
        stop
    }))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_request_sent_twice_counts_once() {
        let at = |ms: u64| Duration::from_millis(ms);
        let first = Arrival {
            signal: libc::SIGTERM,
            sender: Some(42),
            at: at(1000),
        };
        // timeout: the process, then its group, from one sender.
        let group = Arrival {
            at: at(1000),
            ..first
        };
        assert!(group.repeats(&first));
        // Another sender, another signal, or much later: a second request.
        assert!(
            !Arrival {
                sender: Some(7),
                ..group
            }
            .repeats(&first)
        );
        assert!(
            !Arrival {
                signal: libc::SIGINT,
                ..group
            }
            .repeats(&first)
        );
        assert!(
            !Arrival {
                at: at(60_000),
                ..group
            }
            .repeats(&first)
        );
        // A terminal's Ctrl-C comes from the kernel: each press counts.
        let press = Arrival {
            signal: libc::SIGINT,
            sender: None,
            at: at(1000),
        };
        assert!(
            !Arrival {
                at: at(1001),
                ..press
            }
            .repeats(&press)
        );
    }
}

//! Linux: no process an engine starts outlives arena. Each engine runs as pid 2 of a
//! PID namespace of its own, under a small init (pid 1, a fork of arena that never
//! execs) that reaps whatever the engine leaves and exits when the engine does; when
//! that init dies the kernel kills every process of the namespace, helpers started
//! with `setsid` or double forks included. The init dies with the engine, with the
//! process arena started (a second fork, the one arena waits for, which passes the
//! engine's exit status on), and, through `PR_SET_PDEATHSIG`, with arena itself, even
//! on SIGKILL.
//!
//! The namespace is made with `unshare(CLONE_NEWPID)` where arena may (root), else in
//! a user namespace of its own that maps the user to itself (`CLONE_NEWUSER`, where
//! unprivileged user namespaces are allowed). Where neither is allowed, or
//! `ARENA_PID_NAMESPACE=off` says so, engines start as before and arena becomes the
//! subreaper of its descendants (`PR_SET_CHILD_SUBREAPER`): what an engine leaves
//! behind reparents to arena, which kills it when it exits normally or on a second
//! Ctrl-C. That fallback cannot act when arena is killed with SIGKILL.
//!
//! Everything that runs between `fork` and `exec` here calls async-signal-safe system
//! calls only and allocates nothing: what it needs is prepared before (see [`Plan`]).

use std::{io, sync::OnceLock};

/// How engines are kept from outliving arena on this machine (decided once).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Isolation {
    /// A PID namespace per engine; `user`: inside a user namespace of its own.
    Namespace {
        /// Whether a user namespace is needed (arena is not privileged).
        user: bool,
    },
    /// No namespaces: arena is the subreaper of its engines' leftovers.
    Subreaper,
}

/// What the child needs between `fork` and `exec`, prepared in arena.
#[derive(Clone, Copy, Debug)]
pub struct Plan {
    isolation: Isolation,
    /// `U U 1` and `G G 1` for the user namespace's maps, NUL-padded.
    uid_map: [u8; 32],
    gid_map: [u8; 32],
}

/// The variable that turns the namespaces off (`off`, `0`, `no`, `false`).
pub const ENV: &str = "ARENA_PID_NAMESPACE";

/// How engines are isolated, once decided by [`isolation`].
static MODE: OnceLock<Isolation> = OnceLock::new();

/// How this machine isolates engines: probed once, when the first engine starts (a
/// forked child tries to make the namespace); the fallback also makes arena a
/// subreaper.
pub fn isolation() -> Isolation {
    *MODE.get_or_init(|| {
        let off = std::env::var(ENV).is_ok_and(|v| {
            matches!(
                v.trim().to_ascii_lowercase().as_str(),
                "off" | "0" | "no" | "false"
            )
        });
        let mode = if off { None } else { probe() };
        mode.unwrap_or_else(|| {
            // SAFETY: prctl(2) on this process; no memory is involved.
            unsafe {
                libc::prctl(libc::PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0);
            }
            Isolation::Subreaper
        })
    })
}

/// Whether arena is the subreaper of its engines' leftovers: decided, and no PID
/// namespaces (false before any engine started: nothing to clean up then).
pub fn is_subreaper() -> bool {
    MODE.get() == Some(&Isolation::Subreaper)
}

/// The plan for the next engine.
pub fn plan() -> Plan {
    Plan {
        isolation: isolation(),
        ..plan_with(Isolation::Subreaper)
    }
}

/// A plan with `isolation` and the user's own ids for a user namespace's maps.
fn plan_with(isolation: Isolation) -> Plan {
    // SAFETY: getuid(2) and getgid(2) cannot fail.
    let (uid, gid) = unsafe { (libc::getuid(), libc::getgid()) };
    let map = |id: u32| {
        let mut buf = [0u8; 32];
        let text = format!("{id} {id} 1\n");
        buf[..text.len()].copy_from_slice(text.as_bytes());
        buf
    };
    Plan {
        isolation,
        uid_map: map(uid),
        gid_map: map(gid),
    }
}

/// Whether a forked child can make a PID namespace: plain (privileged), or inside a
/// user namespace.
fn probe() -> Option<Isolation> {
    for user in [false, true] {
        let plan = plan_with(Isolation::Namespace { user });
        // SAFETY: the child calls only async-signal-safe functions (unshare, open,
        // write, close, _exit) and allocates nothing; the parent reaps it.
        let ok = unsafe {
            let pid = libc::fork();
            if pid == 0 {
                libc::_exit(if unshare(&plan) { 0 } else { 1 });
            }
            if pid < 0 {
                return None;
            }
            let mut status = 0;
            while libc::waitpid(pid, &mut status, 0) < 0
                && io::Error::last_os_error().kind() == io::ErrorKind::Interrupted
            {}
            libc::WIFEXITED(status) && libc::WEXITSTATUS(status) == 0
        };
        if ok {
            return Some(Isolation::Namespace { user });
        }
    }
    None
}

/// Writes `bytes` (up to the first NUL) to the file `path` (a NUL-terminated path).
unsafe fn write_file(path: &[u8], bytes: &[u8]) -> bool {
    let len = bytes.iter().position(|&b| b == 0).unwrap_or(bytes.len());
    // SAFETY: `path` is NUL-terminated; open/write/close are async-signal-safe.
    unsafe {
        let fd = libc::open(path.as_ptr().cast(), libc::O_WRONLY | libc::O_CLOEXEC);
        if fd < 0 {
            return false;
        }
        let ok = libc::write(fd, bytes.as_ptr().cast(), len) == len as isize;
        libc::close(fd);
        ok
    }
}

/// Makes the PID namespace (the caller's next child is its init); false when the
/// system refuses.
unsafe fn unshare(plan: &Plan) -> bool {
    // SAFETY: unshare(2) and the writes of `write_file` are async-signal-safe.
    unsafe {
        match plan.isolation {
            Isolation::Subreaper => false,
            Isolation::Namespace { user: false } => libc::unshare(libc::CLONE_NEWPID) == 0,
            Isolation::Namespace { user: true } => {
                if libc::unshare(libc::CLONE_NEWUSER | libc::CLONE_NEWPID) != 0 {
                    return false;
                }
                // The user keeps its own ids inside (a failure leaves them unmapped,
                // which the engine can live with).
                write_file(b"/proc/self/uid_map\0", &plan.uid_map);
                write_file(b"/proc/self/setgroups\0", b"deny");
                write_file(b"/proc/self/gid_map\0", &plan.gid_map);
                true
            }
        }
    }
}

/// Closes every file descriptor but `keep` (-1: none).
unsafe fn close_all_but(keep: i32) {
    // SAFETY: close_range(2) and close(2) are async-signal-safe.
    unsafe {
        let ranges: [(i32, i32); 2] = if keep < 0 {
            [(0, i32::MAX), (1, 0)]
        } else {
            [(0, keep - 1), (keep + 1, i32::MAX)]
        };
        for (lo, hi) in ranges {
            if lo > hi {
                continue;
            }
            if libc::syscall(libc::SYS_close_range, lo as u32, hi as u32, 0u32) != 0 {
                for fd in lo..=hi.min(4095) {
                    libc::close(fd);
                }
            }
        }
    }
}

/// Default dispositions and no blocked signals: the forks of arena must not run its
/// handlers (its Ctrl-C handler), nor keep its mask.
unsafe fn plain_signals() {
    // SAFETY: signal(2) and sigprocmask(2) are async-signal-safe.
    unsafe {
        for sig in [
            libc::SIGINT,
            libc::SIGTERM,
            libc::SIGHUP,
            libc::SIGQUIT,
            libc::SIGPIPE,
        ] {
            libc::signal(sig, libc::SIG_DFL);
        }
        let mut set: libc::sigset_t = std::mem::zeroed();
        libc::sigemptyset(&mut set);
        libc::sigprocmask(libc::SIG_SETMASK, &set, std::ptr::null_mut());
    }
}

/// Waits for the child `pid`, retrying on EINTR; its wait status.
unsafe fn wait_for(pid: i32) -> Option<i32> {
    let mut status = 0;
    // SAFETY: waitpid(2) into a local.
    unsafe {
        loop {
            let r = libc::waitpid(pid, &mut status, 0);
            if r == pid {
                return Some(status);
            }
            if r < 0 && *libc::__errno_location() != libc::EINTR {
                return None;
            }
        }
    }
}

/// Ends this process as `status` (a wait status) says the engine ended: with its exit
/// code, or by its signal (without a core file).
unsafe fn exit_like(status: i32) -> ! {
    // SAFETY: async-signal-safe calls only.
    unsafe {
        if libc::WIFSIGNALED(status) {
            let sig = libc::WTERMSIG(status);
            let none = libc::rlimit {
                rlim_cur: 0,
                rlim_max: 0,
            };
            libc::setrlimit(libc::RLIMIT_CORE, &none);
            libc::signal(sig, libc::SIG_DFL);
            libc::kill(libc::getpid(), sig);
            libc::_exit(128 + sig);
        }
        libc::_exit(if libc::WIFEXITED(status) {
            libc::WEXITSTATUS(status)
        } else {
            1
        })
    }
}

/// Runs in the child arena forked for an engine, before `exec`: makes the engine's PID
/// namespace and its init, and returns (Ok) only in the process that is to become the
/// engine. Where no namespace can be made it returns at once and the engine runs as
/// before. The processes that do not become the engine never return.
///
/// # Safety
/// Call only between `fork` and `exec` (a `pre_exec` closure).
pub unsafe fn enter(plan: &Plan) -> io::Result<()> {
    // SAFETY: every call below is async-signal-safe; nothing allocates.
    unsafe {
        if !unshare(plan) {
            return Ok(());
        }
        let mut fds = [0i32; 2];
        if libc::pipe2(fds.as_mut_ptr(), libc::O_CLOEXEC) != 0 {
            return Err(io::Error::last_os_error());
        }
        let (status_r, status_w) = (fds[0], fds[1]);
        let init = libc::fork();
        if init < 0 {
            return Err(io::Error::last_os_error());
        }
        if init > 0 {
            // The process arena waits for: it passes the engine's end on.
            plain_signals();
            close_all_but(status_r);
            let init_status = wait_for(init).unwrap_or(0);
            let mut status = 0i32;
            let n = libc::read(
                status_r,
                (&mut status as *mut i32).cast(),
                std::mem::size_of::<i32>(),
            );
            exit_like(if n == std::mem::size_of::<i32>() as isize {
                status
            } else {
                init_status
            });
        }
        // The namespace's init (pid 1): dies with the process above.
        libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGKILL);
        libc::close(status_r);
        let mut alive = libc::pollfd {
            fd: status_w,
            events: libc::POLLOUT,
            revents: 0,
        };
        // The reading end closed: the process above died before the prctl.
        if libc::poll(&mut alive, 1, 0) == 1 && alive.revents & libc::POLLERR != 0 {
            libc::_exit(1);
        }
        let engine = libc::fork();
        if engine < 0 {
            libc::_exit(127);
        }
        if engine == 0 {
            libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGKILL);
            return Ok(());
        }
        plain_signals();
        close_all_but(status_w);
        // Reap every orphan of the namespace until the engine itself ends; then the
        // namespace goes, and everything still in it with it.
        loop {
            let mut status = 0;
            let pid = libc::waitpid(-1, &mut status, 0);
            if pid == engine {
                libc::write(
                    status_w,
                    (&status as *const i32).cast(),
                    std::mem::size_of::<i32>(),
                );
                libc::_exit(0);
            }
            if pid < 0 && *libc::__errno_location() != libc::EINTR {
                libc::_exit(1);
            }
        }
    }
}

//! Starting an engine process and making sure nothing of it outlives arena: each
//! engine is started directly (never through a shell) in a process group of its own,
//! and on Linux in a PID namespace of its own under a small init (see [`reaper`]), so
//! killing it, its exit, or arena's end (SIGKILL included) takes down every process it
//! started: helpers in its group, a wrapper script's children, helpers started with
//! `setsid`. Where namespaces cannot be had, arena is the subreaper of what its
//! engines leave, and kills it when it exits ([`kill_leftovers`]).
//!
//! Every live engine's process group is known ([`kill_all`]), so arena can take them
//! down when it must exit at once (a second Ctrl-C).

use std::{
    io,
    path::PathBuf,
    process::{Child, Command, Stdio},
    sync::Mutex,
};

use super::engine_log::{SharedLog, log_flush, log_line};
#[cfg(target_os = "linux")]
use super::reaper;

/// How to start an engine.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Launch {
    /// The program (a path, or a name looked up in `PATH`).
    pub command: PathBuf,
    /// Its arguments.
    pub args: Vec<String>,
    /// The folder it runs in (default: ours).
    pub working_dir: Option<PathBuf>,
}

impl Launch {
    /// The command line as a user would type it, for messages.
    pub fn display(&self) -> String {
        let mut s = self.command.display().to_string();
        for a in &self.args {
            s.push(' ');
            if a.contains(char::is_whitespace) || a.is_empty() {
                s.push_str(&format!("'{a}'"));
            } else {
                s.push_str(a);
            }
        }
        s
    }

    pub(super) fn command(&self) -> Command {
        let mut c = Command::new(&self.command);
        c.args(&self.args);
        if let Some(dir) = &self.working_dir {
            c.current_dir(dir);
        }
        // Its own process group: a Ctrl-C in the terminal reaches arena alone, which
        // stops the run and then its engines, instead of engines dying mid-game and
        // being scored as crashes; and killing the group takes the engine's helpers too.
        #[cfg(unix)]
        {
            use std::os::unix::process::CommandExt;
            c.process_group(0);
        }
        #[cfg(target_os = "linux")]
        {
            use std::os::unix::process::CommandExt;
            let parent = std::process::id();
            let plan = reaper::plan();
            // SAFETY: between fork and exec the closure calls only async-signal-safe
            // system calls (prctl, getppid, _exit, and those of `reaper::enter`) and
            // allocates nothing: the plan was made before the fork.
            unsafe {
                c.pre_exec(move || {
                    // Die with arena, however arena ends. The signal follows the thread
                    // that started the engine: the players that start engines live on
                    // threads that outlive them (a run's workers).
                    if libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGKILL) != 0 {
                        return Err(io::Error::last_os_error());
                    }
                    if libc::getppid() as u32 != parent {
                        // arena died between the fork and the prctl.
                        libc::_exit(1);
                    }
                    // The engine's own PID namespace: only the process that is to
                    // become the engine comes back here.
                    reaper::enter(&plan)
                });
            }
        }
        c
    }

    /// Starts the program and stops it at once: whether it can run at all (found,
    /// executable, its working folder exists). The error names the command and the
    /// operating system's reason.
    pub fn check(&self) -> Result<(), String> {
        let child = self
            .command()
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .map_err(|e| self.start_error(&e))?;
        let mut group = Group::new(child, None);
        group.kill();
        Ok(())
    }

    pub(super) fn start_error(&self, e: &io::Error) -> String {
        match &self.working_dir {
            Some(dir) if !dir.is_dir() => format!(
                "cannot start '{}': working_dir '{}' is not a folder",
                self.display(),
                dir.display()
            ),
            _ => format!("cannot start '{}': {e}", self.display()),
        }
    }
}

/// The process groups of every engine that runs now.
static LIVE: Mutex<Vec<i32>> = Mutex::new(Vec::new());

/// Kills every engine's process group at once, and whatever engines left behind
/// (when arena must exit without the polite way: a second Ctrl-C). Safe to call from
/// any thread.
pub fn kill_all() {
    {
        let live = LIVE.lock().unwrap_or_else(|p| p.into_inner());
        for &pgid in live.iter() {
            kill_group(pgid);
        }
    }
    kill_leftovers();
}

/// Kills and reaps what engines left behind that reparented to arena (where arena is
/// their subreaper: without PID namespaces); call when arena exits. Processes of
/// engines still running (and anything in their namespaces) are not touched here.
pub fn kill_leftovers() {
    #[cfg(target_os = "linux")]
    if reaper::is_subreaper() {
        // Killing a leftover reparents its children to arena: a few rounds.
        for _ in 0..16 {
            let orphans = orphans();
            if orphans.is_empty() {
                break;
            }
            for (pid, _) in &orphans {
                // SAFETY: kill(2) and waitpid(2) on a child of ours that no Group
                // owns (an orphan that reparented to arena).
                unsafe {
                    libc::kill(*pid, libc::SIGKILL);
                    libc::waitpid(*pid, std::ptr::null_mut(), 0);
                }
            }
        }
    }
}

/// Reaps leftovers that exited (zombies whose parent is arena, as their subreaper).
fn reap_exited_leftovers() {
    #[cfg(target_os = "linux")]
    if reaper::is_subreaper() {
        for (pid, zombie) in orphans() {
            if zombie {
                // SAFETY: waitpid(2) on an exited child of ours that no Group owns.
                unsafe {
                    libc::waitpid(pid, std::ptr::null_mut(), libc::WNOHANG);
                }
            }
        }
    }
}

/// arena's children that no [`Group`] owns (leftovers of engines that reparented to
/// arena), with whether each has exited: from /proc. Only this module starts
/// processes, so every other child is one.
#[cfg(target_os = "linux")]
fn orphans() -> Vec<(i32, bool)> {
    let me = std::process::id().to_string();
    let live: Vec<i32> = LIVE.lock().unwrap_or_else(|p| p.into_inner()).clone();
    let mut out = Vec::new();
    let Ok(entries) = std::fs::read_dir("/proc") else {
        return out;
    };
    for entry in entries.flatten() {
        let Some(pid) = entry
            .file_name()
            .to_str()
            .and_then(|n| n.parse::<i32>().ok())
        else {
            continue;
        };
        let Ok(stat) = std::fs::read_to_string(entry.path().join("stat")) else {
            continue;
        };
        // "pid (comm) state ppid ...": the command name may hold spaces.
        let mut rest = stat.rsplit_once(')').map_or("", |r| r.1).split_whitespace();
        let (state, ppid) = (rest.next(), rest.next());
        if ppid == Some(me.as_str()) && !live.contains(&pid) {
            out.push((pid, state == Some("Z")));
        }
    }
    out
}

fn kill_group(pgid: i32) {
    #[cfg(unix)]
    // SAFETY: kill(2) with a negative pid signals the process group; no memory is
    // involved. The group's leader is not reaped yet (see `Group`), so its id cannot
    // have been reused.
    unsafe {
        libc::kill(-pgid, libc::SIGKILL);
    }
    #[cfg(not(unix))]
    let _ = pgid;
}

/// An engine process and its process group (the process arena started is the group's
/// leader: the engine itself, or the process that waits for its namespace's init). The
/// leader is reaped only after the group was killed, so the group's id stays its own
/// until then.
pub(super) struct Group {
    child: Child,
    pid: i32,
    log: Option<SharedLog>,
    status: Option<std::process::ExitStatus>,
}

impl Group {
    pub(super) fn new(child: Child, log: Option<SharedLog>) -> Group {
        let pid = child.id() as i32;
        LIVE.lock().unwrap_or_else(|p| p.into_inner()).push(pid);
        Group {
            child,
            pid,
            log,
            status: None,
        }
    }

    /// Whether the engine has exited, without reaping it (its group stays reserved).
    pub(super) fn has_exited(&mut self) -> bool {
        if self.status.is_some() {
            return true;
        }
        #[cfg(unix)]
        {
            // SAFETY: waitid writes into the zeroed siginfo it is given; WNOWAIT leaves
            // the child waitable.
            let mut info: libc::siginfo_t = unsafe { std::mem::zeroed() };
            let rc = unsafe {
                libc::waitid(
                    libc::P_PID,
                    self.pid as libc::id_t,
                    &mut info,
                    libc::WEXITED | libc::WNOHANG | libc::WNOWAIT,
                )
            };
            // SAFETY: si_pid is set by waitid (0 when nothing has exited).
            rc == 0 && unsafe { info.si_pid() } != 0
        }
        #[cfg(not(unix))]
        {
            matches!(self.child.try_wait(), Ok(Some(_)))
        }
    }

    /// Kills the group (whatever is left of it) and reaps the engine; its exit status.
    pub(super) fn kill(&mut self) -> String {
        if self.status.is_none() {
            kill_group(self.pid);
            self.status = self.child.wait().ok();
            LIVE.lock()
                .unwrap_or_else(|p| p.into_inner())
                .retain(|&p| p != self.pid);
            reap_exited_leftovers();
        }
        self.status
            .map_or_else(|| "unknown status".into(), describe_status)
    }
}

impl Drop for Group {
    fn drop(&mut self) {
        if self.status.is_none() {
            let status = self.kill();
            log_line(&self.log, '#', &format!("killed (dropped): {status}"));
            log_flush(&self.log);
        }
    }
}

/// An exit status as the records say it: `exit code 3`, `signal 9`.
pub(super) fn describe_status(status: std::process::ExitStatus) -> String {
    if let Some(code) = status.code() {
        return format!("exit code {code}");
    }
    #[cfg(unix)]
    {
        use std::os::unix::process::ExitStatusExt;
        if let Some(signal) = status.signal() {
            return format!("signal {signal}");
        }
    }
    status.to_string()
}

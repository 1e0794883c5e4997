//! One owner per role: the process in a role (`run`, the trainer, the evaluation, each self-play worker id; the
//! arena that plays into a directory) holds `DIR/locks/<role>.lock` while it lives, and a second claimant stops at
//! once, naming the holder.
//!
//! The lock is the operating system's advisory lock on the file (`File::try_lock`: `flock` on Linux, which NFS
//! clients carry out as a POSIX byte-range lock on the server). The kernel drops it when its process dies however
//! it dies (`kill -9`), and an NFS server when the holder's node stops renewing its lease (a lost node, after the
//! lease time, 90 s by default), so a dead holder's lock is taken over by the next claimant with no clean-up and no
//! clock. The file's one line names the holder for the message: host, pid, since when.

use std::fs::{File, OpenOptions, TryLockError};
use std::io::{Read, Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};
use std::time::SystemTime;

use thiserror::Error;

use crate::RunDir;

#[derive(Debug, Error)]
pub enum LockError {
    #[error(
        "{role} of {run} is taken: {holder} holds {path} (a directory has one {role}; stop that process first, or \
         give this one another directory{worker_hint})",
        run = run.display(), path = path.display()
    )]
    Held { role: String, run: PathBuf, path: PathBuf, holder: String, worker_hint: &'static str },
    #[error("{}: {problem}", path.display())]
    Io { path: PathBuf, problem: String },
}

/// A role held in a run directory: released when dropped (or when the process ends, however it ends).
#[derive(Debug)]
pub struct RoleLock {
    // Holding the open file holds the lock.
    file: File,
}

impl Drop for RoleLock {
    /// Clears the holder's line, so that the file names no one once the role is free (after a crash it names the
    /// last holder, which the next claimant replaces).
    fn drop(&mut self) {
        let _ = self.file.set_len(0);
    }
}

impl RoleLock {
    /// Takes `role` in `run` (creating the run directory where needed), or says who holds it.
    pub fn acquire(run: &RunDir, role: &str) -> Result<RoleLock, LockError> {
        let path = run.lock(role);
        let io = |e: std::io::Error| LockError::Io { path: path.clone(), problem: e.to_string() };
        if let Some(dir) = path.parent() {
            std::fs::create_dir_all(dir).map_err(io)?;
        }
        let mut file =
            OpenOptions::new().read(true).write(true).create(true).truncate(false).open(&path).map_err(io)?;
        match file.try_lock() {
            Ok(()) => {}
            Err(TryLockError::WouldBlock) => {
                let mut text = String::new();
                let _ = file.read_to_string(&mut text);
                let holder = match text.trim() {
                    "" => "a process that is starting".to_string(),
                    line => line.chars().take(200).collect(),
                };
                let worker_hint =
                    if role.starts_with("selfplay-") { ", or this worker another --worker id" } else { "" };
                return Err(LockError::Held {
                    role: role_name(role),
                    run: run.root().to_path_buf(),
                    path,
                    holder,
                    worker_hint,
                });
            }
            Err(TryLockError::Error(e)) => {
                return Err(LockError::Io {
                    path,
                    problem: format!(
                        "cannot lock it ({e}): the run directory's file system must offer advisory locks (NFS: \
                         lockd or v4; Lustre: mounted with flock)"
                    ),
                })
            }
        }
        file.set_len(0).and_then(|()| file.seek(SeekFrom::Start(0))).map_err(io)?;
        writeln!(file, "{}", holder_line()).and_then(|()| file.sync_all()).map_err(io)?;
        Ok(RoleLock { file })
    }
}

/// The role as a message names it: `selfplay-3` is self-play worker 3.
fn role_name(role: &str) -> String {
    match role.strip_prefix("selfplay-") {
        Some(id) => format!("self-play worker {id}"),
        None => role.to_string(),
    }
}

/// This process as the lock file names it: `host H, pid P, since 2026-12-07T06:06:36Z`.
fn holder_line() -> String {
    let since = humantime::format_rfc3339_seconds(SystemTime::now());
    format!("host {}, pid {}, since {since}", host_name(), std::process::id())
}

fn host_name() -> String {
    let read = |p: &str| std::fs::read_to_string(Path::new(p)).ok().map(|s| s.trim().to_string());
    read("/proc/sys/kernel/hostname")
        .or_else(|| std::env::var("HOSTNAME").ok())
        .filter(|h| !h.is_empty())
        .unwrap_or_else(|| "unknown".to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Within one process a second open file description is a second claimant: refused, naming the holder; free
    /// once the first is dropped.
    #[test]
    fn a_second_claimant_is_refused_until_the_first_lets_go() {
        let scratch = tempfile::tempdir().unwrap();
        let run = RunDir::new(scratch.path().join("run"));
        let first = RoleLock::acquire(&run, "selfplay-3").unwrap();
        let err = RoleLock::acquire(&run, "selfplay-3").unwrap_err().to_string();
        let pid = format!("pid {}, since ", std::process::id());
        assert!(err.starts_with("self-play worker 3 of ") && err.contains(&pid), "{err}");
        assert!(err.contains("another --worker id"), "{err}");
        // Other roles, and other workers, are free.
        let _trainer = RoleLock::acquire(&run, "trainer").unwrap();
        let _other = RoleLock::acquire(&run, "selfplay-4").unwrap();
        drop(first);
        RoleLock::acquire(&run, "selfplay-3").unwrap();
    }
}

//! Atomic file writes, the run directory's contract: a file is written beside its destination under a dot-name
//! that readers skip (`.tmp-<name>`), then renamed into place, so a reader sees the whole file or none of it.

use std::path::{Path, PathBuf};

/// The temporary sibling a writer fills before renaming it to `path`.
pub fn temp_path(path: &Path) -> PathBuf {
    let name = path.file_name().map_or_else(|| "file".into(), |n| n.to_string_lossy().to_string());
    path.with_file_name(format!(".tmp-{name}"))
}

/// Writes `bytes` to `path` atomically.
pub fn write_atomic(path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    let tmp = temp_path(path);
    std::fs::write(&tmp, bytes).and_then(|_| std::fs::rename(&tmp, path))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn writes_replace_whole_files_and_leave_no_temporary_behind() {
        let scratch = tempfile::tempdir().unwrap();
        let dir = scratch.path();
        let path = dir.join("a.json");
        write_atomic(&path, b"first").unwrap();
        write_atomic(&path, b"second").unwrap();
        assert_eq!(std::fs::read(&path).unwrap(), b"second");
        assert_eq!(temp_path(&path), dir.join(".tmp-a.json"));
        assert!(!temp_path(&path).exists());
    }
}

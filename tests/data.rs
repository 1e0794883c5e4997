//! The repository's test data (`data/`) is what its README says: every file listed in `data/SHA256SUMS` is present
//! with the checksum recorded when it was copied from its source.

use std::path::Path;
use std::process::Command;

#[test]
fn the_test_data_matches_its_checksums() {
    let data = Path::new(env!("CARGO_MANIFEST_DIR")).join("data");
    let sums = std::fs::read_to_string(data.join("SHA256SUMS")).unwrap();
    assert!(sums.lines().count() >= 49, "SHA256SUMS lists {} files", sums.lines().count());
    let out = Command::new("sha256sum").args(["--check", "--strict", "SHA256SUMS"]).current_dir(&data).output();
    let out = out.expect("sha256sum (coreutils) runs");
    assert!(out.status.success(), "{}{}", String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr));
}

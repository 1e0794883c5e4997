//! Every input a fuzzer crashed on, kept in `fuzz/regressions/<target>/`, replayed through the same checks.

use othello_core::fuzz_checks;

fn replay(target: &str, check: fn(&[u8])) {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../fuzz/regressions").join(target);
    let mut n = 0;
    for entry in std::fs::read_dir(&dir).unwrap_or_else(|e| panic!("{}: {e}", dir.display())) {
        let path = entry.unwrap().path();
        if path.is_file() && !path.file_name().is_some_and(|n| n.to_string_lossy().starts_with(".")) {
            eprintln!("{}", path.display());
            check(&std::fs::read(&path).unwrap());
            n += 1;
        }
    }
    eprintln!("{target}: {n} regression inputs");
}

#[test]
fn board_string_regressions() {
    replay("board_string", fuzz_checks::board_string);
}
#[test]
fn transcript_regressions() {
    replay("transcript", fuzz_checks::transcript);
}
#[test]
fn ggf_regressions() {
    replay("ggf", fuzz_checks::ggf);
}
#[test]
fn wthor_regressions() {
    replay("wthor", fuzz_checks::wthor);
}

use othello_core::solve::{Limits, Mode, Solver};
use othello_core::wthor::WthorFile;
use othello_core::{Rules, Status};

fn main() {
    let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/../../shared/data/wthor");
    let bytes = std::fs::read(format!("{dir}/WTH_2012.wtb")).unwrap();
    let file = WthorFile::parse(&bytes).unwrap();
    let rules = Rules::othello();
    let mut solver = Solver::new();
    for empties in [12u32, 16, 18, 20, 22, 24] {
        let t = std::time::Instant::now();
        let (mut n, mut nodes) = (0, 0u64);
        for game in file.games.iter().step_by(11) {
            let Ok(r) = game.replay() else { continue };
            let Some(pos) = r.position_with_empties(empties) else { continue };
            if !matches!(rules.status(pos), Status::Moves(_)) {
                continue;
            }
            nodes += solver.solve(&rules, pos, Mode::Exact, Limits::default()).unwrap().nodes;
            n += 1;
            if n == 40 {
                break;
            }
        }
        println!("{empties}: {:.4} s/pos {} nodes/pos", t.elapsed().as_secs_f64() / n as f64, nodes / n);
    }
}

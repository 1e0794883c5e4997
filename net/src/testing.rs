//! Helpers shared by this crate's tests: a tiny seeded network and positions of a seeded random game.

use burn::tensor::Device;
use othello_core::{Game, Move, Position, Rules, Status};
use rand::{Rng, SeedableRng};
use rand_pcg::Pcg64Mcg;

use crate::network::{NetConfig, Network};

pub(crate) fn tiny() -> (NetConfig, Network, Device) {
    let device = Device::flex();
    let config = NetConfig::new(1, 8);
    let net = config.init_seeded(&device, 7);
    (config, net, device)
}

/// Up to 20 positions of a random game.
pub(crate) fn positions(rules: &Rules) -> Vec<Position> {
    let mut g = Game::new(*rules);
    let mut out = vec![*g.position()];
    let mut rng = Pcg64Mcg::seed_from_u64(1);
    while !g.is_over() && out.len() < 20 {
        let mv = match g.status() {
            Status::Moves(m) => Move::Play(m.nth(rng.random_range(0..m.count())).unwrap()),
            _ => Move::Pass,
        };
        g.push(mv).unwrap();
        out.push(*g.position());
    }
    out
}

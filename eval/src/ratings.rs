//! Elo ratings from game results: the Bradley-Terry model fitted by maximum likelihood (Newton's method), anchored
//! to one player, with standard errors from the curvature of the likelihood, widened where games come in
//! correlated pairs (one opening played with both colours), and the likelihood of superiority between players.
//!
//! The model: player i scores against j with probability `1 / (1 + 10^(-(R_i - R_j) / 400))`; a draw counts half
//! a win and half a loss. A weak prior (one virtual draw between every two players who met, as KataGo's `elo.py`
//! adds) keeps an undefeated player's rating finite.

use std::borrow::Borrow;
use std::collections::HashMap;
use std::fmt::Display;

use thiserror::Error;

/// Natural-log units per Elo point: a rating difference of `d` Elo is a logit of `d * ELO_TO_LOGIT`.
const ELO_TO_LOGIT: f64 = std::f64::consts::LN_10 / 400.0;

/// Virtual draws added between every two players who met.
const PRIOR_DRAWS: f64 = 1.0;

/// One game's result, as the fit reads it. A player is anything printed one way (the arena's players are
/// [`othello_players::AgentSpec`]s; a name will do).
#[derive(Clone, Debug, PartialEq)]
pub struct GameResult<P = String> {
    pub black: P,
    pub white: P,
    /// Black's score: 1 a win, 0.5 a draw, 0 a loss.
    pub black_score: f64,
    /// Games sharing a pair id were played from one opening with the colours swapped, and are correlated.
    pub pair: Option<u64>,
}

#[derive(Debug, Error, PartialEq)]
pub enum RatingsError {
    #[error("no games to rate")]
    NoGames,
    #[error("the anchor '{0}' played no game")]
    UnknownAnchor(String),
    #[error("game {index}: score {score} is not 0, 0.5 or 1")]
    BadScore { index: usize, score: f64 },
    #[error("game {index}: '{player}' plays itself")]
    SelfPlay { index: usize, player: String },
    #[error(
        "the players fall into {groups} groups that never met (e.g. '{example}' and the anchor): ratings across them \
         mean nothing"
    )]
    Disconnected { groups: usize, example: String },
    #[error("the fit did not converge")]
    NoConvergence,
}

/// One player's fitted rating.
#[derive(Clone, Debug, PartialEq)]
pub struct Rating<P = String> {
    pub player: P,
    /// Elo, the anchor's rating given.
    pub elo: f64,
    /// Standard error of `elo` (0 for the anchor), in Elo.
    pub std_error: f64,
    pub games: usize,
    /// Points scored (draws half).
    pub score: f64,
}

impl<P> Rating<P> {
    /// The 95% interval half-width.
    pub fn interval95(&self) -> f64 {
        1.959964 * self.std_error
    }
}

/// The fit: every player's rating and the covariance of the estimates.
#[derive(Clone, Debug)]
pub struct Ratings<P = String> {
    pub ratings: Vec<Rating<P>>,
    /// Covariance of the ratings, in Elo squared, in the order of `ratings` (the anchor's row and column are 0).
    covariance: Vec<Vec<f64>>,
}

/// A player's rating is found by the player (a name's by a `&str`).
impl<P> Ratings<P> {
    pub fn get<Q: PartialEq + ?Sized>(&self, player: &Q) -> Option<&Rating<P>>
    where
        P: Borrow<Q>,
    {
        self.ratings.iter().find(|r| r.player.borrow() == player)
    }

    fn index<Q: PartialEq + ?Sized>(&self, player: &Q) -> Option<usize>
    where
        P: Borrow<Q>,
    {
        self.ratings.iter().position(|r| r.player.borrow() == player)
    }

    /// The standard error of the difference between two players' ratings, in Elo.
    pub fn difference_std_error<Q: PartialEq + ?Sized>(&self, a: &Q, b: &Q) -> Option<f64>
    where
        P: Borrow<Q>,
    {
        let (i, j) = (self.index(a)?, self.index(b)?);
        let c = &self.covariance;
        Some((c[i][i] + c[j][j] - 2.0 * c[i][j]).max(0.0).sqrt())
    }

    /// The likelihood that `a` is stronger than `b`: the probability, under the fit's normal approximation, that
    /// the difference of their true ratings is positive.
    pub fn likelihood_of_superiority<Q: PartialEq + ?Sized>(&self, a: &Q, b: &Q) -> Option<f64>
    where
        P: Borrow<Q>,
    {
        let diff = self.get(a)?.elo - self.get(b)?.elo;
        let sd = self.difference_std_error(a, b)?;
        Some(if sd == 0.0 { 0.5 + 0.5 * diff.signum() } else { normal_cdf(diff / sd) })
    }
}

/// The standard normal distribution function.
pub fn normal_cdf(x: f64) -> f64 {
    0.5 * (1.0 + libm::erf(x / std::f64::consts::SQRT_2))
}

/// The Elo difference at which the stronger side's expected score is `score` (0.75 gives +190.8).
/// The 95% Wilson score interval of a proportion: `successes` of `n` (exact at the edges, unlike the normal one).
pub fn proportion_interval(successes: usize, n: usize) -> (f64, f64) {
    if n == 0 {
        return (0.0, 1.0);
    }
    let (z, n, p) = (1.96f64, n as f64, successes as f64 / n as f64);
    let centre = (p + z * z / (2.0 * n)) / (1.0 + z * z / n);
    let half = z / (1.0 + z * z / n) * (p * (1.0 - p) / n + z * z / (4.0 * n * n)).sqrt();
    ((centre - half).max(0.0), (centre + half).min(1.0))
}

pub fn elo_from_score(score: f64) -> f64 {
    -400.0 * (1.0 / score - 1.0).log10()
}

/// The expected score of a player `elo` points stronger than its opponent.
pub fn expected_score(elo: f64) -> f64 {
    1.0 / (1.0 + 10f64.powf(-elo / 400.0))
}

/// A player's text, which tells players apart in the fit (a function, where a closure's argument type is unknown).
fn player_name<P: Display>(player: &P) -> String {
    player.to_string()
}

/// Fits every player's rating, `anchor` fixed at `anchor_elo`. The result is sorted, strongest first.
pub fn fit<P: Clone + PartialEq + Display + Borrow<Q>, Q: Display + ?Sized>(
    games: &[GameResult<P>],
    anchor: &Q,
    anchor_elo: f64,
) -> Result<Ratings<P>, RatingsError> {
    if games.is_empty() {
        return Err(RatingsError::NoGames);
    }
    // Players told apart by how they print: one text, one player.
    let (mut names, mut players): (Vec<String>, Vec<&P>) = (Vec::new(), Vec::new());
    let mut ids: HashMap<String, usize> = HashMap::new();
    // (black, white, black's score, cluster)
    let mut rows = Vec::with_capacity(games.len());
    for (index, g) in games.iter().enumerate() {
        if ![0.0, 0.5, 1.0].contains(&g.black_score) {
            return Err(RatingsError::BadScore { index, score: g.black_score });
        }
        if g.black == g.white {
            return Err(RatingsError::SelfPlay { index, player: g.black.to_string() });
        }
        let mut id = |player| {
            let name = player_name(player);
            *ids.entry(name.clone()).or_insert_with(|| {
                names.push(name);
                players.push(player);
                names.len() - 1
            })
        };
        let (b, w) = (id(&g.black), id(&g.white));
        rows.push((b, w, g.black_score, g.pair.map_or(Cluster::Game(index), Cluster::Pair)));
    }
    let n = names.len();
    let anchor = anchor.to_string();
    let a = names.iter().position(|p| *p == anchor).ok_or(RatingsError::UnknownAnchor(anchor))?;
    check_connected(n, &rows, a, &names)?;
    // Each pair of players who met gets PRIOR_DRAWS virtual draws.
    let mut met: Vec<(usize, usize)> = rows.iter().map(|&(b, w, _, _)| (b.min(w), b.max(w))).collect();
    met.sort_unstable();
    met.dedup();

    // Newton's method on the log-likelihood in logit units, the anchor held at 0.
    let mut r = vec![0.0f64; n];
    let free: Vec<usize> = (0..n).filter(|&i| i != a).collect();
    let mut converged = false;
    for _ in 0..100 {
        let (gradient, hessian) = derivatives(&r, &rows, &met);
        let step = solve(&submatrix(&hessian, &free), &free.iter().map(|&i| -gradient[i]).collect::<Vec<_>>());
        let Some(step) = step else { break };
        let largest = step.iter().fold(0.0f64, |m, s| m.max(s.abs()));
        // Steps are capped so that a far-off start cannot overshoot into a region where the curvature vanishes.
        let scale = if largest > 2.0 { 2.0 / largest } else { 1.0 };
        for (k, &i) in free.iter().enumerate() {
            r[i] += scale * step[k];
        }
        if largest < 1e-10 {
            converged = true;
            break;
        }
    }
    if !converged {
        return Err(RatingsError::NoConvergence);
    }

    // The model's covariance is the inverse of the information (minus the Hessian); the clustered ("sandwich")
    // covariance accounts for correlated games (colour-swapped pairs). Each rating takes the larger.
    let (_, hessian) = derivatives(&r, &rows, &met);
    let information: Vec<Vec<f64>> =
        submatrix(&hessian, &free).iter().map(|row| row.iter().map(|h| -h).collect()).collect();
    let model = invert(&information).ok_or(RatingsError::NoConvergence)?;
    let meat = cluster_scores(&r, &rows, &free);
    let sandwich = multiply(&multiply(&model, &meat), &model);
    let to_elo = 1.0 / ELO_TO_LOGIT;
    let mut covariance = vec![vec![0.0; n]; n];
    for (x, &i) in free.iter().enumerate() {
        for (y, &j) in free.iter().enumerate() {
            // Scaling the model's covariance up where the clustered variance is larger keeps the matrix a
            // covariance (positive semi-definite) while every variance is the larger of the two.
            let sx = (sandwich[x][x] / model[x][x]).max(1.0).sqrt();
            let sy = (sandwich[y][y] / model[y][y]).max(1.0).sqrt();
            covariance[i][j] = model[x][y] * sx * sy * to_elo * to_elo;
        }
    }
    let mut games_of = vec![0usize; n];
    let mut score_of = vec![0.0f64; n];
    for &(b, w, s, _) in &rows {
        games_of[b] += 1;
        games_of[w] += 1;
        score_of[b] += s;
        score_of[w] += 1.0 - s;
    }
    let mut order: Vec<usize> = (0..n).collect();
    order.sort_by(|&i, &j| r[j].total_cmp(&r[i]).then(names[i].cmp(&names[j])));
    let ratings = order
        .iter()
        .map(|&i| Rating {
            player: players[i].clone(),
            elo: anchor_elo + r[i] * to_elo,
            std_error: covariance[i][i].max(0.0).sqrt(),
            games: games_of[i],
            score: score_of[i],
        })
        .collect();
    let covariance = order.iter().map(|&i| order.iter().map(|&j| covariance[i][j]).collect()).collect();
    Ok(Ratings { ratings, covariance })
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
enum Cluster {
    Game(usize),
    Pair(u64),
}

/// The log-likelihood's gradient and Hessian in logit units, prior included.
fn derivatives(r: &[f64], rows: &[(usize, usize, f64, Cluster)], met: &[(usize, usize)]) -> (Vec<f64>, Vec<Vec<f64>>) {
    let n = r.len();
    let (mut g, mut h) = (vec![0.0; n], vec![vec![0.0; n]; n]);
    let mut add = |i: usize, j: usize, score: f64, weight: f64| {
        let p = 1.0 / (1.0 + (r[j] - r[i]).exp());
        g[i] += weight * (score - p);
        g[j] -= weight * (score - p);
        let c = weight * p * (1.0 - p);
        h[i][i] -= c;
        h[j][j] -= c;
        h[i][j] += c;
        h[j][i] += c;
    };
    for &(b, w, s, _) in rows {
        add(b, w, s, 1.0);
    }
    for &(i, j) in met {
        add(i, j, 0.5, PRIOR_DRAWS);
    }
    (g, h)
}

/// The sum over clusters of the outer product of each cluster's score (gradient) vector, over the free players.
fn cluster_scores(r: &[f64], rows: &[(usize, usize, f64, Cluster)], free: &[usize]) -> Vec<Vec<f64>> {
    let mut by_cluster: HashMap<Cluster, Vec<f64>> = HashMap::new();
    let position: HashMap<usize, usize> = free.iter().enumerate().map(|(k, &i)| (i, k)).collect();
    for &(b, w, s, cluster) in rows {
        let p = 1.0 / (1.0 + (r[w] - r[b]).exp());
        let g = by_cluster.entry(cluster).or_insert_with(|| vec![0.0; free.len()]);
        if let Some(&k) = position.get(&b) {
            g[k] += s - p;
        }
        if let Some(&k) = position.get(&w) {
            g[k] -= s - p;
        }
    }
    let m = free.len();
    let mut meat = vec![vec![0.0; m]; m];
    for g in by_cluster.values() {
        for x in 0..m {
            for y in 0..m {
                meat[x][y] += g[x] * g[y];
            }
        }
    }
    meat
}

fn check_connected(
    n: usize,
    rows: &[(usize, usize, f64, Cluster)],
    anchor: usize,
    names: &[String],
) -> Result<(), RatingsError> {
    let mut group: Vec<usize> = (0..n).collect();
    fn find(group: &mut [usize], i: usize) -> usize {
        let mut i = i;
        while group[i] != i {
            group[i] = group[group[i]];
            i = group[i];
        }
        i
    }
    for &(b, w, _, _) in rows {
        let (x, y) = (find(&mut group, b), find(&mut group, w));
        group[x] = y;
    }
    let root = find(&mut group, anchor);
    let mut roots: Vec<usize> = (0..n).map(|i| find(&mut group, i)).collect();
    let outside = (0..n).find(|&i| roots[i] != root);
    roots.sort_unstable();
    roots.dedup();
    match outside {
        Some(i) => Err(RatingsError::Disconnected { groups: roots.len(), example: names[i].clone() }),
        None => Ok(()),
    }
}

fn submatrix(m: &[Vec<f64>], keep: &[usize]) -> Vec<Vec<f64>> {
    keep.iter().map(|&i| keep.iter().map(|&j| m[i][j]).collect()).collect()
}

fn multiply(a: &[Vec<f64>], b: &[Vec<f64>]) -> Vec<Vec<f64>> {
    let (n, m, k) = (a.len(), b.first().map_or(0, Vec::len), b.len());
    (0..n).map(|i| (0..m).map(|j| (0..k).map(|t| a[i][t] * b[t][j]).sum()).collect()).collect()
}

/// Solves `m x = v` by Gaussian elimination with partial pivoting; `None` if `m` is singular.
fn solve(m: &[Vec<f64>], v: &[f64]) -> Option<Vec<f64>> {
    let n = v.len();
    let mut a: Vec<Vec<f64>> = m.iter().zip(v).map(|(row, &x)| row.iter().copied().chain([x]).collect()).collect();
    for col in 0..n {
        let pivot = (col..n).max_by(|&i, &j| a[i][col].abs().total_cmp(&a[j][col].abs()))?;
        if a[pivot][col].abs() < 1e-300 {
            return None;
        }
        a.swap(col, pivot);
        let pivot_row = a[col].clone();
        for (row, values) in a.iter_mut().enumerate() {
            if row != col {
                let f = values[col] / pivot_row[col];
                for (v, p) in values[col..].iter_mut().zip(&pivot_row[col..]) {
                    *v -= f * p;
                }
            }
        }
    }
    Some((0..n).map(|i| a[i][n] / a[i][i]).collect())
}

fn invert(m: &[Vec<f64>]) -> Option<Vec<Vec<f64>>> {
    let n = m.len();
    let columns: Option<Vec<Vec<f64>>> =
        (0..n).map(|j| solve(m, &(0..n).map(|i| if i == j { 1.0 } else { 0.0 }).collect::<Vec<_>>())).collect();
    let columns = columns?;
    Some((0..n).map(|i| (0..n).map(|j| columns[j][i]).collect()).collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `wins`, `draws` and `losses` of `a` against `b`, colours alternating, each game on its own.
    fn games(a: &str, b: &str, wins: usize, draws: usize, losses: usize) -> Vec<GameResult> {
        let scores = std::iter::repeat_n(1.0, wins)
            .chain(std::iter::repeat_n(0.5, draws))
            .chain(std::iter::repeat_n(0.0, losses));
        scores
            .enumerate()
            .map(|(k, s)| {
                let pair = None;
                if k % 2 == 0 {
                    GameResult { black: a.into(), white: b.into(), black_score: s, pair }
                } else {
                    GameResult { black: b.into(), white: a.into(), black_score: 1.0 - s, pair }
                }
            })
            .collect()
    }

    #[test]
    fn elo_and_expected_score_are_inverse() {
        assert!((elo_from_score(0.75) - 190.849).abs() < 1e-3);
        for elo in [-400.0, -35.0, 0.0, 120.0, 800.0] {
            assert!((elo_from_score(expected_score(elo)) - elo).abs() < 1e-9);
        }
        assert!((normal_cdf(0.0) - 0.5).abs() < 1e-15 && (normal_cdf(1.959964) - 0.975).abs() < 1e-6);
    }

    /// Wilson's interval against published values (8 of 10: 0.4902 to 0.9433; 0 of 10: 0 to 0.2775).
    #[test]
    fn proportion_intervals_match_wilsons_published_values() {
        let (low, high) = proportion_interval(8, 10);
        assert!((low - 0.4902).abs() < 5e-4 && (high - 0.9433).abs() < 5e-4, "{low} {high}");
        let (low, high) = proportion_interval(0, 10);
        assert!(low == 0.0 && (high - 0.2775).abs() < 5e-4, "{high}");
    }

    /// Two players, one scoring 75%: +190.8 Elo, to 1 Elo (the prior's virtual draw moves it by 0.1 here).
    #[test]
    fn a_75_percent_score_is_190_8_elo() {
        let g = games("strong", "weak", 1500, 0, 500);
        let fit = fit(&g, "weak", 0.0).unwrap();
        let strong = fit.get("strong").unwrap();
        assert!((strong.elo - 190.85).abs() < 1.0, "{strong:?}");
        assert_eq!((strong.games, strong.score), (2000, 1500.0));
        assert_eq!(fit.get("weak").unwrap().elo, 0.0);
        // Draws count half: 1,000 wins, 1,000 draws and 0 losses is the same 75%.
        let fit = super::fit(&games("strong", "weak", 1000, 1000, 0), "weak", 0.0).unwrap();
        assert!((fit.get("strong").unwrap().elo - 190.85).abs() < 1.0);
    }

    /// Three players whose scores the model fits exactly, solved by hand: A scores 75% against B (+190.85), B 75%
    /// against C (+190.85), so A must be +381.70 over C, an expected score of 1 / (1 + 10^(-381.70/400)) = 0.9;
    /// with A scoring exactly 90% against C the likelihood's maximum is that point.
    #[test]
    fn three_players_fit_the_hand_solution() {
        let mut g = games("A", "B", 3000, 0, 1000);
        g.extend(games("B", "C", 3000, 0, 1000));
        g.extend(games("A", "C", 3600, 0, 400));
        let fit = fit(&g, "C", 0.0).unwrap();
        let elo = |p: &str| fit.get(p).unwrap().elo;
        assert!((elo("A") - 381.70).abs() < 1.0, "{fit:?}");
        assert!((elo("B") - 190.85).abs() < 1.0, "{fit:?}");
        assert_eq!(fit.ratings.iter().map(|r| r.player.as_str()).collect::<Vec<_>>(), ["A", "B", "C"]);
        // Anchored elsewhere, every difference is the same.
        let other = super::fit(&g, "A", 1000.0).unwrap();
        assert!((other.get("C").unwrap().elo - (1000.0 - 381.70)).abs() < 1.0);
    }

    /// Intervals shrink as games grow: a hundred times the games, a tenth of the error (within 20%).
    #[test]
    fn intervals_shrink_as_the_games_grow() {
        let small = fit(&games("x", "y", 60, 0, 40), "y", 0.0).unwrap();
        let large = fit(&games("x", "y", 6000, 0, 4000), "y", 0.0).unwrap();
        let (s, l) = (small.get("x").unwrap().std_error, large.get("x").unwrap().std_error);
        assert!(s > 0.0 && l > 0.0);
        assert!((s / l - 10.0).abs() < 2.0, "{s} against {l}");
        // The binomial standard error of a 60% score over 10,000 games, carried through the logistic curve.
        let p: f64 = 0.6;
        let expected = (p * (1.0 - p) / 10_000.0).sqrt() * 400.0 / std::f64::consts::LN_10 / (p * (1.0 - p));
        assert!((l - expected).abs() / expected < 0.1, "{l} against {expected}");
    }

    #[test]
    fn an_undefeated_player_stays_finite() {
        let fit = fit(&games("perfect", "victim", 20, 0, 0), "victim", 0.0).unwrap();
        let perfect = fit.get("perfect").unwrap();
        assert!(perfect.elo.is_finite() && perfect.elo > 400.0 && perfect.elo < 2000.0, "{perfect:?}");
        assert!(perfect.std_error.is_finite() && perfect.std_error > 0.0);
    }

    /// Paired games that always agree (each opening decides both games) carry the information of half as many
    /// independent games: the interval widens by about the square root of two.
    #[test]
    fn correlated_pairs_widen_the_interval() {
        let independent = fit(&games("a", "b", 600, 0, 400), "b", 0.0).unwrap();
        // The same scores, arranged so that both games of a pair have the same result for "a".
        let mut paired: Vec<GameResult> = Vec::new();
        for k in 0..500u64 {
            let s = if k < 300 { 1.0 } else { 0.0 };
            paired.push(GameResult { black: "a".into(), white: "b".into(), black_score: s, pair: Some(k) });
            paired.push(GameResult { black: "b".into(), white: "a".into(), black_score: 1.0 - s, pair: Some(k) });
        }
        let paired = fit(&paired, "b", 0.0).unwrap();
        let (i, p) = (independent.get("a").unwrap(), paired.get("a").unwrap());
        assert!((i.elo - p.elo).abs() < 1e-6);
        let ratio = p.std_error / i.std_error;
        assert!((ratio - 2f64.sqrt()).abs() < 0.1, "{ratio}");
    }

    #[test]
    fn likelihood_of_superiority_follows_the_evidence() {
        let mut g = games("a", "b", 550, 0, 450);
        g.extend(games("b", "c", 500, 0, 500));
        let fit = fit(&g, "c", 0.0).unwrap();
        let los = fit.likelihood_of_superiority("a", "b").unwrap();
        assert!(los > 0.99, "{los}");
        let even = fit.likelihood_of_superiority("b", "c").unwrap();
        assert!((even - 0.5).abs() < 0.05, "{even}");
        assert!((fit.likelihood_of_superiority("b", "a").unwrap() + los - 1.0).abs() < 1e-9);
    }

    #[test]
    fn bad_inputs_are_refused_by_name() {
        assert_eq!(fit::<String, str>(&[], "x", 0.0).unwrap_err(), RatingsError::NoGames);
        let g = games("a", "b", 1, 0, 1);
        assert_eq!(fit(&g, "z", 0.0).unwrap_err(), RatingsError::UnknownAnchor("z".into()));
        let mut bad = g.clone();
        bad[1].black_score = 0.7;
        assert_eq!(fit(&bad, "a", 0.0).unwrap_err(), RatingsError::BadScore { index: 1, score: 0.7 });
        let mut apart = g.clone();
        apart.extend(games("c", "d", 1, 0, 1));
        assert!(matches!(fit(&apart, "a", 0.0).unwrap_err(), RatingsError::Disconnected { groups: 2, .. }));
    }
}

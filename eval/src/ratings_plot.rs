//! The pictures of training runs' checkpoints (`ratings.svg`, `optimal-moves.svg`): a measure of each checkpoint
//! (its Elo, or how often it played the solver's move) with its 95% interval against the training step, against the
//! run's time and against the self-play positions it was trained on, one colour per run, and the fixed players as
//! horizontal lines.

use std::path::{Path, PathBuf};

use othello_net::{read_info, resolve_checkpoint, CheckpointInfo};
use plotters::prelude::*;

use crate::ratings::Ratings;
use othello_players::spec::AgentSpec;

/// One checkpoint's measure.
#[derive(Clone, Debug, PartialEq)]
pub struct CheckpointPoint {
    pub step: u64,
    /// Hours since the run started, when known.
    pub hours: Option<f64>,
    /// Self-play positions that had arrived when the checkpoint was written.
    pub positions: u64,
    /// The measure (Elo, or a rate in percent) and its 95% interval.
    pub value: f64,
    pub low: f64,
    pub high: f64,
}

/// A run's checkpoints (played with one spec), oldest first.
#[derive(Clone, Debug, PartialEq)]
pub struct RunCurve {
    pub label: String,
    /// The first checkpoint's player: the curve's search is its search.
    pub player: Option<AgentSpec>,
    pub points: Vec<CheckpointPoint>,
}

/// A player drawn as a horizontal line.
#[derive(Clone, Debug, PartialEq)]
pub struct FixedLine {
    pub label: String,
    pub value: f64,
    /// An external engine's line stands out: the scale a reader knows from elsewhere.
    pub external: bool,
}

impl FixedLine {
    pub fn of(player: &AgentSpec, value: f64) -> FixedLine {
        FixedLine { label: player.label(), value, external: player.is_external() }
    }
}

/// A player's measure: its spec, the value and the value's 95% interval (low, high).
pub type PlayerMeasure = (AgentSpec, f64, f64, f64);

/// The checkpoint a rated player plays (its spec's `model=`), if it is one: the spec's model, the sidecar's path
/// and the sidecar.
pub fn rated_checkpoint(player: &AgentSpec) -> Option<(String, PathBuf, CheckpointInfo)> {
    let model = player.model()?.to_string();
    let path = resolve_checkpoint(Path::new(&model)).ok()?;
    let info = read_info(&path).ok()?;
    Some((model, path, info))
}

/// The rated players split into checkpoints of training runs (players whose `model=` is a checkpoint with
/// training information), one curve per run and spec, and the fixed players (name, Elo).
pub fn curves_from(fit: &Ratings<AgentSpec>) -> (Vec<RunCurve>, Vec<FixedLine>) {
    curves_of(fit.ratings.iter().map(|r| (r.player.clone(), r.elo, r.elo - r.interval95(), r.elo + r.interval95())))
}

/// Players' measures split as [`curves_from`] splits ratings: the checkpoints of training runs, one curve per run
/// and spec, and the fixed players (name, value).
pub fn curves_of(measures: impl IntoIterator<Item = PlayerMeasure>) -> (Vec<RunCurve>, Vec<FixedLine>) {
    let mut curves: Vec<RunCurve> = Vec::new();
    let mut fixed = Vec::new();
    for (player, value, low, high) in measures {
        let checkpoint = rated_checkpoint(&player).and_then(|(model, path, info)| {
            let training = info.training?;
            // RUN/models/model-*.json: the run is two levels up.
            let run = path.parent()?.parent()?.to_path_buf();
            Some((run, info.step, training, model))
        });
        let Some((run, step, training, model)) = checkpoint else {
            fixed.push(FixedLine::of(&player, value));
            continue;
        };
        // A run begun from another network's weights says so wherever it is drawn.
        let warm = othello_run::RunDir::new(&run).warm_start().exists();
        let name = format!("{}{}", run.display(), if warm { " (warm start)" } else { "" });
        let label = player.to_string().replace(&model, &name);
        let started_at = othello_run::RunDir::new(&run).started_at();
        let hours = training.seconds_into_run(started_at).map(|s| s as f64 / 3600.0);
        let point = CheckpointPoint { step, hours, positions: training.positions_seen, value, low, high };
        match curves.iter_mut().find(|c| c.label == label) {
            Some(curve) => curve.points.push(point),
            None => curves.push(RunCurve { label, player: Some(player), points: vec![point] }),
        }
    }
    for curve in &mut curves {
        curve.points.sort_by_key(|p| p.step);
    }
    (curves, fixed)
}

const COLOURS: [RGBColor; 6] = [
    RGBColor(31, 119, 180),
    RGBColor(214, 39, 40),
    RGBColor(44, 160, 44),
    RGBColor(148, 103, 189),
    RGBColor(255, 127, 14),
    RGBColor(23, 190, 207),
];

/// The quantity a panel of the picture puts on its x axis.
#[derive(Clone, Copy, PartialEq)]
enum Axis {
    Step,
    Hours,
    Positions,
}

impl Axis {
    fn of(self, p: &CheckpointPoint) -> Option<f64> {
        match self {
            Axis::Step => Some(p.step as f64),
            Axis::Hours => p.hours,
            Axis::Positions => Some(p.positions as f64 / 1e6),
        }
    }
}

/// Draws `runs`' `measure` (its name on the y axis: "Elo") against the training step, wall time (where known) and
/// self-play positions, side by side, with `fixed` players as grey lines; written atomically to `svg`.
pub fn plot_curves(runs: &[RunCurve], fixed: &[FixedLine], measure: &str, svg: &Path) -> Result<(), String> {
    let err = |e: &dyn std::fmt::Display| e.to_string();
    let all = runs.iter().flat_map(|r| r.points.iter());
    let lows = all.clone().map(|p| p.low).chain(fixed.iter().map(|f| f.value));
    let highs = all.clone().map(|p| p.high).chain(fixed.iter().map(|f| f.value));
    let lo = lows.fold(f64::INFINITY, f64::min);
    let hi = highs.fold(f64::NEG_INFINITY, f64::max);
    if !lo.is_finite() || !hi.is_finite() {
        return Err("nothing to draw".into());
    }
    let pad = ((hi - lo) * 0.08).max(1.0);
    let mut text = String::new();
    {
        let root = SVGBackend::with_string(&mut text, (1650, 560)).into_drawing_area();
        root.fill(&WHITE).map_err(|e| err(&e))?;
        let panels = root.split_evenly((1, 3));
        let axes = [
            (Axis::Step, "training step", "training step"),
            (Axis::Hours, "wall time", "hours"),
            (Axis::Positions, "self-play positions", "million self-play positions"),
        ];
        for (area, (axis, against, x_desc)) in panels.iter().zip(axes) {
            let caption = format!("{measure} against {against}");
            let x_max = all.clone().filter_map(|p| axis.of(p)).fold(0.0f64, f64::max).max(1e-3);
            let mut chart = ChartBuilder::on(area)
                .caption(caption, ("sans-serif", 20))
                .margin(12)
                .x_label_area_size(35)
                .y_label_area_size(55)
                .build_cartesian_2d(0.0..x_max * 1.02, (lo - pad)..(hi + pad))
                .map_err(|e| err(&e))?;
            chart.configure_mesh().x_desc(x_desc).y_desc(measure).draw().map_err(|e| err(&e))?;
            for FixedLine { label, value, external } in fixed {
                let grey = if *external { RGBColor(170, 60, 30) } else { RGBColor(150, 150, 150) };
                chart
                    .draw_series(LineSeries::new([(0.0, *value), (x_max * 1.02, *value)], grey.stroke_width(1)))
                    .map_err(|e| err(&e))?;
                chart
                    .draw_series([Text::new(
                        label.clone(),
                        (x_max * 0.01, *value + pad * 0.1),
                        ("sans-serif", 12).into_font().color(&grey),
                    )])
                    .map_err(|e| err(&e))?;
            }
            for (run, colour) in runs.iter().zip(COLOURS.iter().cycle()) {
                let points: Vec<(f64, &CheckpointPoint)> =
                    run.points.iter().filter_map(|p| axis.of(p).map(|x| (x, p))).collect();
                let colour = *colour;
                chart
                    .draw_series(LineSeries::new(points.iter().map(|(x, p)| (*x, p.value)), colour.stroke_width(2)))
                    .map_err(|e| err(&e))?
                    .label(run.label.clone())
                    .legend(move |(x, y)| PathElement::new(vec![(x, y), (x + 20, y)], colour.stroke_width(2)));
                chart
                    .draw_series(
                        points
                            .iter()
                            .map(|(x, p)| ErrorBar::new_vertical(*x, p.low, p.value, p.high, colour.filled(), 6)),
                    )
                    .map_err(|e| err(&e))?;
            }
            if !runs.is_empty() {
                chart
                    .configure_series_labels()
                    .position(SeriesLabelPosition::LowerRight)
                    .background_style(WHITE.mix(0.8))
                    .border_style(BLACK)
                    .draw()
                    .map_err(|e| err(&e))?;
            }
        }
        root.present().map_err(|e| err(&e))?;
    }
    othello_run::write_atomic(svg, text.as_bytes()).map_err(|e| format!("writing {}: {e}", svg.display()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_picture_holds_every_run_and_fixed_player() {
        let scratch = tempfile::tempdir().unwrap();
        let dir = scratch.path();
        let svg = dir.join("ratings.svg");
        let point = |step, elo| CheckpointPoint {
            step,
            hours: Some(step as f64 / 1000.0),
            positions: step * 100,
            value: elo,
            low: elo - 40.0,
            high: elo + 40.0,
        };
        let runs = [
            RunCurve { label: "run-a".into(), player: None, points: vec![point(100, 50.0), point(200, 180.0)] },
            RunCurve { label: "run-b".into(), player: None, points: vec![point(100, 20.0)] },
        ];
        let fixed =
            [("random", 0.0), ("positional:depth=2", 400.0)].map(|(p, v)| FixedLine::of(&p.parse().unwrap(), v));
        plot_curves(&runs, &fixed, "Elo", &svg).unwrap();
        let text = std::fs::read_to_string(&svg).unwrap();
        for label in [
            "run-a",
            "run-b",
            "random",
            "positional:depth=2",
            "training step",
            "hours",
            "self-play positions",
            "Elo against wall time",
        ] {
            assert!(text.contains(label), "{label} missing");
        }
        assert!(plot_curves(&[], &[], "Elo", &svg).is_err(), "nothing to draw");
    }
}

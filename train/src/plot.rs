//! Training curves as a picture: `RUN/logs/curves.svg`, drawn from `scalars.csv` at every checkpoint, so a run
//! can be judged at a glance without TensorBoard.

use std::path::Path;

use plotters::prelude::*;

use crate::log::{read_scalars, COLUMNS};

/// The panels: a title and the columns drawn in it.
const PANELS: [(&str, &[&str]); 4] = [
    ("policy loss", &["policy_loss"]),
    ("value, margin and ownership losses", &["value_loss", "margin_loss", "ownership_loss"]),
    ("policy entropy (nats) and value accuracy", &["policy_entropy", "value_accuracy"]),
    ("learning rate", &["learning_rate"]),
];

/// Draws the curves of `csv` into `svg` (written atomically). Nothing to draw is not an error.
pub fn plot_curves(csv: &Path, svg: &Path) -> Result<(), String> {
    let rows = read_scalars(csv).map_err(|e| e.to_string())?;
    if rows.len() < 2 {
        return Ok(());
    }
    let column = |name: &str| COLUMNS.iter().position(|c| *c == name).expect("a known column");
    let steps = (rows[0][0], rows[rows.len() - 1][0]);
    let mut text = String::new();
    {
        let root = SVGBackend::with_string(&mut text, (1000, 800)).into_drawing_area();
        root.fill(&WHITE).map_err(|e| e.to_string())?;
        let colors = [BLUE, RED, RGBColor(0, 150, 0), MAGENTA];
        for ((title, names), area) in PANELS.iter().zip(root.split_evenly((2, 2))) {
            let series: Vec<(&str, Vec<(f64, f64)>)> = names
                .iter()
                .map(|n| (*n, rows.iter().map(|r| (r[0], r[column(n)])).filter(|p| p.1.is_finite()).collect()))
                .collect();
            let values = series.iter().flat_map(|(_, s)| s.iter().map(|p| p.1));
            let (lo, hi) = values.fold((f64::INFINITY, f64::NEG_INFINITY), |(lo, hi), v| (lo.min(v), hi.max(v)));
            // A nearly constant series (a learning rate early in a long decay) still gets a readable scale.
            let pad = ((hi - lo) * 0.05).max(hi.abs() * 0.05).max(1e-9);
            let mut chart = ChartBuilder::on(&area)
                .caption(*title, ("sans-serif", 18))
                .margin(10)
                .x_label_area_size(30)
                .y_label_area_size(60)
                .build_cartesian_2d(steps.0..steps.1.max(steps.0 + 1.0), (lo - pad)..(hi + pad))
                .map_err(|e| e.to_string())?;
            chart
                .configure_mesh()
                .x_desc("step")
                .x_label_formatter(&|x| format!("{x:.0}"))
                .y_label_formatter(&|y| if hi.abs() < 0.01 { format!("{y:.2e}") } else { format!("{y:.2}") })
                .draw()
                .map_err(|e| e.to_string())?;
            for ((name, points), color) in series.into_iter().zip(colors) {
                chart
                    .draw_series(LineSeries::new(points, color.stroke_width(2)))
                    .map_err(|e| e.to_string())?
                    .label(name)
                    .legend(move |(x, y)| PathElement::new(vec![(x, y), (x + 20, y)], color.stroke_width(2)));
            }
            chart
                .configure_series_labels()
                .background_style(WHITE.mix(0.8))
                .border_style(BLACK)
                .draw()
                .map_err(|e| e.to_string())?;
        }
        root.present().map_err(|e| e.to_string())?;
    }
    othello_run::write_atomic(svg, text.as_bytes()).map_err(|e| e.to_string())
}

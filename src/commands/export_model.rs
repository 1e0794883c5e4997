//! `export`: a model for other frontends.

use std::path::Path;

use anyhow::Result;

/// Export a model for other frontends: safetensors, ONNX, a model card, and example inputs and outputs.
#[derive(clap::Args)]
pub struct ExportArgs {
    /// A model (`RUN/models/model-<step>.json` or `.bpk`), or a run directory (its newest checkpoint).
    #[arg(long)]
    model: std::path::PathBuf,
    /// The directory the export is written to.
    #[arg(long)]
    out: std::path::PathBuf,
}

pub fn export(a: ExportArgs) -> Result<()> {
    export_to(&a.model, &a.out)
}

fn export_to(model: &Path, out: &Path) -> Result<()> {
    let model = othello_net::resolve_checkpoint(model)?;
    let written = othello_train::export::export(&model, out)?;
    for path in [&written.safetensors, &written.onnx, &written.card, &written.examples, &written.examples_json] {
        outln!("{}", path.display());
    }
    Ok(())
}

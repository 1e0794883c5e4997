//! `export`: a model for other frontends.

use std::path::Path;

use anyhow::{Context, Result};
use othello_run::RunDir;

pub fn run(model: &Path, out: &Path) -> Result<()> {
    let model = if model.is_dir() {
        let models = RunDir::new(model).models();
        othello_net::newest_model(&models)
            .with_context(|| format!("{}: no model in {}", model.display(), models.display()))?
    } else {
        model.to_path_buf()
    };
    let written = othello_train::export::export(&model, out)?;
    for path in [&written.safetensors, &written.onnx, &written.card, &written.examples] {
        println!("{}", path.display());
    }
    Ok(())
}

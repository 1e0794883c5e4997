//! `export`: a model for other frontends.

use std::path::Path;

use anyhow::Result;

pub fn run(model: &Path, out: &Path) -> Result<()> {
    let model = othello_net::resolve_model(model)?;
    let written = othello_train::export::export(&model, out)?;
    for path in [&written.safetensors, &written.onnx, &written.card, &written.examples] {
        println!("{}", path.display());
    }
    Ok(())
}

//! The Burn device, chosen by name at run time: the same code runs on the CPU (flex) or, when the crate is built
//! with the `wgpu` or `cuda` feature, on a GPU.

use burn::tensor::Device;

/// `flex` (CPU, always built), `wgpu`, `cuda`.
pub fn device(name: &str) -> Result<Device, String> {
    match name {
        "flex" | "cpu" => Ok(Device::flex()),
        #[cfg(feature = "wgpu")]
        "wgpu" => Ok(Device::wgpu(burn::tensor::DeviceKind::DefaultDevice)),
        #[cfg(feature = "cuda")]
        "cuda" => Ok(Device::cuda(0)),
        other => Err(format!(
            "device '{other}' is not in this build (available: {}; GPU backends need `--features wgpu` or `cuda`)",
            available().join(", ")
        )),
    }
}

/// The device names this build knows.
pub fn available() -> Vec<&'static str> {
    let mut names = vec!["flex"];
    if cfg!(feature = "wgpu") {
        names.push("wgpu");
    }
    if cfg!(feature = "cuda") {
        names.push("cuda");
    }
    names
}

#[cfg(test)]
mod tests {
    #[test]
    fn unknown_devices_are_refused_with_the_list() {
        assert!(super::device("flex").is_ok());
        let err = super::device("tpu").unwrap_err();
        assert!(err.contains("tpu") && err.contains("flex"), "{err}");
    }
}

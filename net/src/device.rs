//! The Burn device a stage runs on, chosen by name at run time: the same code runs on the CPU (flex) or, when the
//! crate is built with the `wgpu`, `cuda` or `tch` feature, on a GPU.

use burn::tensor::Device;
use serde::{Deserialize, Serialize};
use thiserror::Error;

/// A device by name, as configs (`device = "flex"`) and `--device` write it.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum DeviceChoice {
    /// The CPU, through burn-flex (always built).
    #[default]
    #[serde(alias = "cpu")]
    Flex,
    /// A GPU through wgpu (Vulkan, Metal, DX12), in builds with the `wgpu` feature.
    Wgpu,
    /// An NVIDIA GPU through CUDA, in builds with the `cuda` feature.
    Cuda,
    /// The first CUDA GPU through LibTorch, in builds with the `tch` feature: a CUDA path that builds offline
    /// against the LibTorch inside PyPI's `torch` (README, "On a GPU").
    Tch,
}

#[derive(Debug, Error, PartialEq, Eq)]
pub enum DeviceError {
    #[error("device '{name}' is not in this build (available: {}; GPU backends need `--features wgpu`, `cuda` or `tch`)", DeviceChoice::available().join(", "))]
    NotBuilt { name: &'static str },
    #[error("unknown device '{0}' (expected flex, wgpu, cuda or tch)")]
    Unknown(String),
}

impl DeviceChoice {
    pub fn name(self) -> &'static str {
        match self {
            DeviceChoice::Flex => "flex",
            DeviceChoice::Wgpu => "wgpu",
            DeviceChoice::Cuda => "cuda",
            DeviceChoice::Tch => "tch",
        }
    }

    /// The device, or an error naming what this build has.
    pub fn device(self) -> Result<Device, DeviceError> {
        match self {
            DeviceChoice::Flex => Ok(Device::flex()),
            #[cfg(feature = "wgpu")]
            DeviceChoice::Wgpu => Ok(Device::wgpu(burn::tensor::DeviceKind::DefaultDevice)),
            #[cfg(feature = "cuda")]
            DeviceChoice::Cuda => Ok(Device::cuda(0)),
            // Burn marks its LibTorch backend deprecated in favour of CubeCL's CUDA, which cannot be built offline.
            #[cfg(feature = "tch")]
            #[allow(deprecated)]
            DeviceChoice::Tch => Ok(Device::libtorch_cuda(0)),
            #[allow(unreachable_patterns)]
            other => Err(DeviceError::NotBuilt { name: other.name() }),
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
        if cfg!(feature = "tch") {
            names.push("tch");
        }
        names
    }
}

impl std::str::FromStr for DeviceChoice {
    type Err = DeviceError;
    /// The names configs use (serde's, aliases included), so that the two cannot drift apart.
    fn from_str(s: &str) -> Result<DeviceChoice, DeviceError> {
        use serde::de::IntoDeserializer;
        let name: serde::de::value::StrDeserializer<serde::de::value::Error> = s.into_deserializer();
        DeviceChoice::deserialize(name).map_err(|_| DeviceError::Unknown(s.to_string()))
    }
}

impl std::fmt::Display for DeviceChoice {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn devices_not_built_or_unknown_are_refused_with_the_list() {
        assert!(DeviceChoice::Flex.device().is_ok());
        assert_eq!("cpu".parse(), Ok(DeviceChoice::Flex));
        let err = "tpu".parse::<DeviceChoice>().unwrap_err().to_string();
        assert!(err.contains("tpu") && err.contains("flex"), "{err}");
        if !cfg!(feature = "cuda") {
            let err = DeviceChoice::Cuda.device().unwrap_err().to_string();
            assert!(err.contains("cuda") && err.contains("available: flex"), "{err}");
        }
        if !cfg!(feature = "tch") {
            let err = DeviceChoice::Tch.device().unwrap_err().to_string();
            assert!(err.contains("'tch'") && err.contains("available: flex"), "{err}");
        }
    }
}

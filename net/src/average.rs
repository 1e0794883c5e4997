//! Weight averaging: a network whose every float tensor (weights, biases, batch-norm scales and running
//! statistics) is the mean of several checkpoints' of one architecture, a stochastic weight average. The late
//! checkpoints of a run wander around a minimum with the noise of each step; their mean sits nearer it.

use std::path::PathBuf;

use burn::module::{Module, ModuleMapper, ModuleVisitor, Param};
use burn::tensor::{Device, Tensor};

use crate::checkpoint::{load_checkpoint, CheckpointError, CheckpointInfo};
use crate::network::Network;

/// Every float tensor of a module, flattened, in the module's visiting order.
struct Flatten(Vec<Tensor<1>>);

impl ModuleVisitor for Flatten {
    fn visit_float<const D: usize>(&mut self, param: &Param<Tensor<D>>) {
        self.0.push(param.val().flatten(0, D - 1));
    }
}

/// Replaces each float tensor `t` by `keep * t + (1 - keep) * other`, `other` taken in the same visiting order.
struct Blend {
    others: std::vec::IntoIter<Tensor<1>>,
    keep: f64,
}

impl ModuleMapper for Blend {
    fn map_float<const D: usize>(&mut self, param: Param<Tensor<D>>) -> Param<Tensor<D>> {
        let Some(other) = self.others.next() else { return param };
        let keep = self.keep;
        param.map(|t| {
            let shape = t.shape();
            t.mul_scalar(keep) + other.reshape(shape).mul_scalar(1.0 - keep)
        })
    }
}

fn flatten(net: &Network) -> Vec<Tensor<1>> {
    let mut tensors = Flatten(Vec::new());
    net.visit(&mut tensors);
    tensors.0
}

/// `keep * average + (1 - keep) * other`, tensor by tensor; `None` when the two are not of one architecture
/// (their tensors differ in number or in size). Both on one device, without autodiff (`Module::valid`).
fn blend(average: Network, other: &Network, keep: f64) -> Option<Network> {
    let others = flatten(other);
    let own = flatten(&average);
    let same = own.len() == others.len() && own.iter().zip(&others).all(|(a, b)| a.shape() == b.shape());
    same.then(|| average.map(&mut Blend { others: others.into_iter(), keep }))
}

/// The mean of the checkpoints `models` (sidecars or weights, oldest first), and the sidecar of the average: the
/// newest's, with `averaged_from` naming them all. A checkpoint of another architecture than the first's is an
/// error naming it.
pub fn average_checkpoints(models: &[PathBuf], device: &Device) -> Result<(Network, CheckpointInfo), CheckpointError> {
    let first = models
        .first()
        .ok_or_else(|| CheckpointError { path: PathBuf::from("."), problem: "no checkpoint to average".into() })?;
    let (net, mut info) = load_checkpoint(first, None, device)?;
    let mut average = net.valid();
    for (i, path) in models.iter().enumerate().skip(1) {
        let (net, newer) = load_checkpoint(path, Some(&info.architecture), device)?;
        // The running mean: the i models so far weigh i/(i+1).
        average = blend(average, &net.valid(), i as f64 / (i + 1) as f64).ok_or_else(|| CheckpointError {
            path: path.clone(),
            problem: "its tensors differ from the first checkpoint's".into(),
        })?;
        info = newer;
    }
    info.averaged_from = models.iter().map(|p| p.with_extension("json").display().to_string()).collect();
    Ok((average, info))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::checkpoint::save_checkpoint;
    use crate::network::NetConfig;

    fn values(net: &Network) -> Vec<f32> {
        flatten(net).into_iter().flat_map(|t| t.into_data().try_to_vec::<f32>().unwrap()).collect()
    }

    /// Each tensor of the blend is the weighted mean of the two networks' tensors, batch-norm statistics
    /// included, and a network of another architecture is refused.
    #[test]
    fn a_blend_is_the_weighted_mean_of_every_tensor() {
        let device = Device::flex();
        let config = NetConfig::new(1, 8);
        let (a, b) = (config.init_seeded(&device, 1), config.init_seeded(&device, 2));
        let (va, vb) = (values(&a), values(&b));
        assert!(va.len() > 1000 && va != vb);
        let mixed = values(&blend(a.clone(), &b, 0.75).unwrap());
        for ((m, x), y) in mixed.iter().zip(&va).zip(&vb) {
            assert!((m - (0.75 * x + 0.25 * y)).abs() < 1e-6, "{m} {x} {y}");
        }
        // The running variances start at 1 in both: a mean of ones stays one.
        let stats = blend(a.clone(), &b, 0.5).unwrap().stem.bn.running_var.value();
        assert!(stats.into_data().try_to_vec::<f32>().unwrap().iter().all(|v| (v - 1.0).abs() < 1e-6));
        assert!(blend(a.clone(), &NetConfig::new(2, 8).init_seeded(&device, 3), 0.5).is_none());
        assert!(blend(a, &NetConfig::new(1, 16).init_seeded(&device, 3), 0.5).is_none());
    }

    /// The average of three checkpoints is their plain mean, its sidecar the newest's with the three named; a
    /// checkpoint of another architecture is refused by name.
    #[test]
    fn the_average_of_checkpoints_is_their_mean() {
        let device = Device::flex();
        let config = NetConfig::new(1, 4);
        let scratch = tempfile::tempdir().unwrap();
        let nets: Vec<Network> = (0..3).map(|s| config.init_seeded(&device, s)).collect();
        let paths: Vec<PathBuf> = nets
            .iter()
            .enumerate()
            .map(|(i, net)| {
                save_checkpoint(scratch.path(), net, &CheckpointInfo::untrained(config.clone(), 10 * (i as u64 + 1)))
                    .unwrap()
            })
            .collect();
        let (average, info) = average_checkpoints(&paths, &device).unwrap();
        let v: Vec<Vec<f32>> = nets.iter().map(values).collect();
        for (j, got) in values(&average).iter().enumerate() {
            let want = (v[0][j] + v[1][j] + v[2][j]) / 3.0;
            assert!((got - want).abs() < 1e-6, "{got} {want}");
        }
        assert_eq!(info.step, 30);
        assert_eq!(info.averaged_from.len(), 3);
        assert!(info.averaged_from[0].ends_with("model-000000010.json"), "{:?}", info.averaged_from);

        let other = CheckpointInfo::untrained(NetConfig::new(2, 4), 40);
        let odd = save_checkpoint(scratch.path(), &NetConfig::new(2, 4).init_seeded(&device, 9), &other).unwrap();
        let err = average_checkpoints(&[paths[0].clone(), odd], &device).unwrap_err().to_string();
        assert!(err.contains("model-000000040") && err.contains("2x4") && err.contains("1x4"), "{err}");
        assert!(average_checkpoints(&[], &device).is_err());
    }
}

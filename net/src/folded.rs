//! The network for inference on the CPU: each batch norm folded into the convolution before it (its running
//! statistics are constants at inference), activations kept one row per square and one column per channel, and
//! each convolution one matrix product (`crate::matmul`). Burn's CPU convolution copies and rewrites its operands
//! around each product, which costs the small networks of CPU self-play more than the products themselves.
//! The outputs are [`Network::forward`]'s in inference (a test holds them together); the ownership head, which
//! only training reads, is left out.

use burn::tensor::Tensor;
use ndarray::{Array2, ArrayView2};

use crate::matmul::matmul;
use crate::network::{ConvBn, Network};

/// Positions pushed through the whole network at a time: their im2col matrix stays in the core's cache.
const CHUNK: usize = 8;

/// A convolution (1x1 or 3x3, padded to keep the 8x8 grid) with its batch norm folded in.
struct FoldedConv {
    /// [taps * cin, cout]: row `tap * cin + c` weighs channel `c` of the square at `tap` (row-major over the
    /// 3x3 window) around the output square.
    weight: Array2<f32>,
    bias: Vec<f32>,
    taps: usize,
}

/// A linear layer: `weight` [in, out] (burn's layout), `bias` [out].
struct Dense {
    weight: Array2<f32>,
    bias: Vec<f32>,
}

/// [`Network`] with its batch norms folded, for inference on the CPU.
pub struct FoldedNetwork {
    stem: FoldedConv,
    tower: Vec<[FoldedConv; 2]>,
    policy_conv: FoldedConv,
    policy_fc: Dense,
    value_conv: FoldedConv,
    value_fc: Dense,
    value_out: Dense,
    margin_out: Dense,
}

/// The outputs for `n` positions, as [`crate::Output`] holds them: policy logits (`n` x 65), value and margin / 64.
pub struct FoldedOutput {
    pub policy: Vec<f32>,
    pub value: Vec<f32>,
    pub margin: Vec<f32>,
}

/// A tensor's values as f32, if it holds them.
pub(crate) fn values<const D: usize>(tensor: Tensor<D>) -> Option<Vec<f32>> {
    tensor.into_data().try_into_vec::<f32>().ok()
}

/// The square under `tap` (0..9, row-major over the 3x3 window) around `square`, if it is on the grid.
fn neighbour(square: usize, tap: usize) -> Option<usize> {
    let (y, x) = ((square / 8) as isize + tap as isize / 3 - 1, (square % 8) as isize + tap as isize % 3 - 1);
    ((0..8).contains(&y) && (0..8).contains(&x)).then_some((y * 8 + x) as usize)
}

impl FoldedConv {
    fn new(conv_bn: &ConvBn) -> Option<FoldedConv> {
        let (conv, bn) = (&conv_bn.conv, &conv_bn.bn);
        let [cout, cin, kh, kw] = conv.weight.dims();
        let taps = kh * kw;
        if !(taps == 1 || (kh == 3 && kw == 3)) {
            return None;
        }
        let w = values(conv.weight.val())?;
        let mut bias = match &conv.bias {
            Some(b) => values(b.val())?,
            None => vec![0.0; cout],
        };
        let gamma = values(bn.gamma.val())?;
        let beta = values(bn.beta.val())?;
        let mean = values(bn.running_mean.value())?;
        let var = values(bn.running_var.value())?;
        if [w.len(), bias.len(), gamma.len(), beta.len(), mean.len(), var.len()]
            != [cout * cin * taps, cout, cout, cout, cout, cout]
        {
            return None;
        }
        // (conv(x) + b - mean) / sqrt(var + eps) * gamma + beta = conv(x) * s + (b - mean) * s + beta.
        let scale: Vec<f32> = (0..cout).map(|o| gamma[o] / (var[o] + bn.epsilon as f32).sqrt()).collect();
        for o in 0..cout {
            bias[o] = (bias[o] - mean[o]) * scale[o] + beta[o];
        }
        let weight = Array2::from_shape_fn((taps * cin, cout), |(row, o)| {
            w[(o * cin + row % cin) * taps + row / cin] * scale[o]
        });
        Some(FoldedConv { weight, bias, taps })
    }

    /// `out` = relu(conv(`x`) + `residual`), `x` and `out` [positions * 64, channels]; `cols` the im2col scratch.
    fn forward(&self, x: &Array2<f32>, cols: &mut [f32], out: &mut Array2<f32>, residual: Option<&Array2<f32>>) {
        let (rows, cin) = x.dim();
        if self.taps == 1 {
            matmul(x.view(), self.weight.view(), out, false);
        } else {
            let width = self.taps * cin;
            let xs = flat(x);
            let cols = &mut cols[..rows * width];
            for (row, dst) in cols.chunks_exact_mut(width).enumerate() {
                let (base, square) = (row - row % 64, row % 64);
                for (tap, part) in dst.chunks_exact_mut(cin).enumerate() {
                    match neighbour(square, tap) {
                        Some(n) => part.copy_from_slice(&xs[(base + n) * cin..(base + n + 1) * cin]),
                        None => part.fill(0.0),
                    }
                }
            }
            let cols = ArrayView2::from_shape((rows, width), &*cols).expect("the scratch holds rows x width");
            matmul(cols, self.weight.view(), out, false);
        }
        let channels = out.ncols();
        let out = out.as_slice_mut().expect("arrays made here are in standard layout");
        match residual {
            Some(skip) => {
                for (row, skip) in out.chunks_exact_mut(channels).zip(flat(skip).chunks_exact(channels)) {
                    for ((v, b), s) in row.iter_mut().zip(&self.bias).zip(skip) {
                        *v = (*v + b + s).max(0.0);
                    }
                }
            }
            None => {
                for row in out.chunks_exact_mut(channels) {
                    for (v, b) in row.iter_mut().zip(&self.bias) {
                        *v = (*v + b).max(0.0);
                    }
                }
            }
        }
    }
}

fn flat(a: &Array2<f32>) -> &[f32] {
    a.as_slice().expect("arrays made here are in standard layout")
}

impl Dense {
    fn new(linear: &burn::nn::Linear) -> Option<Dense> {
        let [inputs, outputs] = linear.weight.dims();
        let weight = Array2::from_shape_vec((inputs, outputs), values(linear.weight.val())?).ok()?;
        let bias = match &linear.bias {
            Some(b) => values(b.val())?,
            None => vec![0.0; outputs],
        };
        (bias.len() == outputs).then_some(Dense { weight, bias })
    }

    /// `x` [positions, in] -> [positions, out].
    fn forward(&self, x: &Array2<f32>) -> Array2<f32> {
        let mut out = Array2::from_shape_fn((x.nrows(), self.bias.len()), |(_, o)| self.bias[o]);
        matmul(x.view(), self.weight.view(), &mut out, true);
        out
    }
}

/// [positions * 64, channels] -> [positions, channels * 64], channel-major as burn's reshape of [B, C, 8, 8].
fn flatten(x: &Array2<f32>) -> Array2<f32> {
    let channels = x.ncols();
    Array2::from_shape_fn((x.nrows() / 64, channels * 64), |(p, k)| x[(p * 64 + k % 64, k / 64)])
}

impl FoldedNetwork {
    /// The folded network, or `None` if a parameter cannot be read as f32 or a layer is not of the shapes folded
    /// here (then burn's forward pass serves).
    pub fn new(net: &Network) -> Option<FoldedNetwork> {
        Some(FoldedNetwork {
            stem: FoldedConv::new(&net.stem)?,
            tower: net
                .tower
                .iter()
                .map(|block| Some([FoldedConv::new(&block.a)?, FoldedConv::new(&block.b)?]))
                .collect::<Option<_>>()?,
            policy_conv: FoldedConv::new(&net.policy_conv)?,
            policy_fc: Dense::new(&net.policy_fc)?,
            value_conv: FoldedConv::new(&net.value_conv)?,
            value_fc: Dense::new(&net.value_fc)?,
            value_out: Dense::new(&net.value_out)?,
            margin_out: Dense::new(&net.margin_out)?,
        })
    }

    /// `planes`: `n` positions' input planes, [n, planes, 8, 8] as [`crate::encode`] writes them.
    pub fn forward(&self, planes: &[f32], n: usize) -> FoldedOutput {
        let inputs = self.stem.weight.nrows() / self.stem.taps;
        let filters = self.stem.weight.ncols();
        let widest = inputs.max(filters);
        let mut cols = vec![0.0; CHUNK * 64 * 9 * widest];
        let mut out = FoldedOutput { policy: Vec::with_capacity(n * 65), value: Vec::new(), margin: Vec::new() };
        for first in (0..n).step_by(CHUNK) {
            let count = CHUNK.min(n - first);
            let rows = count * 64;
            let x = Array2::from_shape_fn((rows, inputs), |(r, p)| {
                planes.get(((first + r / 64) * inputs + p) * 64 + r % 64).copied().unwrap_or(0.0)
            });
            let mut a = Array2::zeros((rows, filters));
            self.stem.forward(&x, &mut cols, &mut a, None);
            let (mut b, mut next) = (Array2::zeros((rows, filters)), Array2::zeros((rows, filters)));
            for [first_conv, second_conv] in &self.tower {
                first_conv.forward(&a, &mut cols, &mut b, None);
                second_conv.forward(&b, &mut cols, &mut next, Some(&a));
                std::mem::swap(&mut a, &mut next);
            }
            let mut head = |conv: &FoldedConv| {
                let mut h = Array2::zeros((rows, conv.weight.ncols()));
                conv.forward(&a, &mut cols, &mut h, None);
                flatten(&h)
            };
            let policy = self.policy_fc.forward(&head(&self.policy_conv));
            let mut hidden = self.value_fc.forward(&head(&self.value_conv));
            hidden.mapv_inplace(|v| v.max(0.0));
            out.policy.extend(policy.iter());
            out.value.extend(self.value_out.forward(&hidden).iter().map(|v| v.tanh()));
            out.margin.extend(self.margin_out.forward(&hidden).iter());
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::network::NetConfig;
    use crate::testing::positions;
    use burn::tensor::{Device, TensorData};
    use othello_core::planes::{encode, PLANES};
    use othello_core::{Rules, Symmetry};

    /// The folded network answers as burn's forward pass does, on trained-looking batch norms (running statistics
    /// and scales away from their initial 0 and 1), on 8x8 and 6x6 positions, a batch not a multiple of the chunk.
    #[test]
    fn the_folded_network_agrees_with_burns_forward_pass() {
        let device = Device::flex();
        for (config, rules) in
            [(NetConfig::new(2, 16), Rules::othello()), (NetConfig::new(1, 8), "othello,6x6".parse::<Rules>().unwrap())]
        {
            let config = NetConfig { value_channels: 3, ..config };
            let net = perturbed(config.init_seeded(&device, 11), &device);
            let folded = FoldedNetwork::new(&net).expect("a flex network folds");
            let pos = positions(&rules);
            let mut planes = Vec::new();
            for p in &pos {
                encode(&rules, p, Symmetry::IDENTITY, &mut planes);
            }
            let n = pos.len();
            let reference =
                net.forward(Tensor::from_data(TensorData::new(planes.clone(), [n, PLANES.len(), 8, 8]), &device));
            let got = folded.forward(&planes, n);
            for (name, want, got) in [
                ("policy", values(reference.policy).unwrap(), got.policy),
                ("value", values(reference.value).unwrap(), got.value),
                ("margin", values(reference.margin).unwrap(), got.margin),
            ] {
                assert_eq!(want.len(), got.len(), "{name}");
                let worst = want.iter().zip(&got).map(|(a, b)| (a - b).abs()).fold(0.0f32, f32::max);
                assert!(worst < 1e-4, "{name}: off by {worst}");
            }
        }
    }

    /// Every batch norm given scales, shifts and running statistics of its own, as training leaves them.
    fn perturbed(mut net: Network, device: &Device) -> Network {
        use burn::module::{Param, RunningState};
        use burn::tensor::Distribution::Uniform;
        let mut conv_bns: Vec<&mut ConvBn> = vec![&mut net.stem, &mut net.policy_conv, &mut net.value_conv];
        for block in &mut net.tower {
            conv_bns.extend([&mut block.a, &mut block.b]);
        }
        for cb in conv_bns {
            let [c] = cb.bn.gamma.dims();
            let uniform = |lo, hi| Tensor::<1>::random([c], Uniform(lo, hi), device);
            cb.bn.gamma = Param::from_tensor(uniform(0.5, 1.5));
            cb.bn.beta = Param::from_tensor(uniform(-0.5, 0.5));
            cb.bn.running_mean = RunningState::new(uniform(-0.5, 0.5));
            cb.bn.running_var = RunningState::new(uniform(0.5, 2.0));
        }
        net
    }
}

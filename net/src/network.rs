//! The residual network: input planes -> residual tower -> policy (64 squares + pass), value (tanh), and the
//! auxiliary heads known to speed up learning in Othello (final disc margin, final ownership of each square).
//!
//! Every board size uses the 8x8 grid (a smaller board sits in its top-left corner, marked by the board plane),
//! so the policy always has 65 entries in bitboard order ([`othello_core::POLICY_SIZE`]).

use burn::module::Module;
use burn::nn::conv::{Conv2d, Conv2dConfig};
use burn::nn::{BatchNorm, BatchNormConfig, Initializer, Linear, LinearConfig, PaddingConfig2d};
use burn::tensor::activation::{relu, tanh};
use burn::tensor::{Device, Tensor};
use othello_run::config_check::check_counts;
use serde::{Deserialize, Serialize};

use othello_core::planes::PLANES;

/// The architecture: what a checkpoint must match to be loaded.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct NetConfig {
    pub blocks: usize,
    pub filters: usize,
    pub input_planes: usize,
    /// 1x1 convolution channels the value head reads the tower through (a checkpoint without the key: 1).
    pub value_channels: usize,
    pub value_hidden: usize,
}

/// The most parameters an architecture may have: more is a mistyped key, whose arrays would exhaust the memory
/// before any error could name it.
pub const MAX_PARAMETERS: u64 = 100_000_000;

impl Default for NetConfig {
    /// 4 residual blocks of 64 filters.
    fn default() -> NetConfig {
        NetConfig::new(4, 64)
    }
}

impl std::fmt::Display for NetConfig {
    fn fmt(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        write!(
            f,
            "{}x{} ({} input planes, value head {}x{})",
            self.blocks, self.filters, self.input_planes, self.value_channels, self.value_hidden
        )
    }
}

impl NetConfig {
    pub fn new(blocks: usize, filters: usize) -> NetConfig {
        NetConfig { blocks, filters, input_planes: PLANES.len(), value_channels: 1, value_hidden: 64 }
    }

    /// Why this architecture cannot be built, if it cannot: every width at least 1, the planes the encoder makes,
    /// and at most [`MAX_PARAMETERS`].
    pub fn validate(&self) -> Result<(), String> {
        let widths =
            [("filters", self.filters), ("value_channels", self.value_channels), ("value_hidden", self.value_hidden)];
        check_counts("", &widths.map(|(key, width)| (key, width as u64, u64::MAX)))?;
        if self.input_planes != PLANES.len() {
            return Err(format!("input_planes = {} (the encoder makes {})", self.input_planes, PLANES.len()));
        }
        let parameters = self.parameters();
        if parameters > MAX_PARAMETERS {
            return Err(format!(
                "a {self} network has {parameters} parameters (at most {MAX_PARAMETERS}: 40 blocks of 256 filters \
                 have 47 million)"
            ));
        }
        Ok(())
    }

    /// The parameters (weights, biases, the batch norms' scales, shifts and running statistics), saturating where
    /// a mistyped width overflows.
    pub fn parameters(&self) -> u64 {
        let [blocks, f, planes, vc, vh] =
            [self.blocks, self.filters, self.input_planes, self.value_channels, self.value_hidden].map(|n| n as u64);
        let conv_bn = |cin: u64, cout: u64, k: u64| {
            cin.saturating_mul(cout).saturating_mul(k * k).saturating_add(cout.saturating_mul(4))
        };
        let linear = |inputs: u64, outputs: u64| inputs.saturating_mul(outputs).saturating_add(outputs);
        [
            conv_bn(planes, f, 3),
            blocks.saturating_mul(2).saturating_mul(conv_bn(f, f, 3)),
            conv_bn(f, 2, 1),
            linear(2 * 64, 65),
            conv_bn(f, vc, 1),
            linear(vc.saturating_mul(64), vh),
            linear(vh, 1),
            linear(vh, 1),
            linear(f, 1),
        ]
        .into_iter()
        .fold(0, u64::saturating_add)
    }

    pub fn init(&self, device: &Device) -> Network {
        let f = self.filters;
        Network {
            stem: ConvBn::new(self.input_planes, f, 3, device),
            tower: (0..self.blocks).map(|_| ResBlock::new(f, device)).collect(),
            policy_conv: ConvBn::new(f, 2, 1, device),
            policy_fc: LinearConfig::new(2 * 64, 65).init(device),
            value_conv: ConvBn::new(f, self.value_channels, 1, device),
            value_fc: LinearConfig::new(64 * self.value_channels, self.value_hidden).init(device),
            value_out: LinearConfig::new(self.value_hidden, 1).init(device),
            margin_out: LinearConfig::new(self.value_hidden, 1).init(device),
            ownership_conv: Conv2dConfig::new([f, 1], [1, 1]).init(device),
        }
    }

    /// A random initialisation that the same seed reproduces.
    pub fn init_seeded(&self, device: &Device, seed: u64) -> Network {
        seeded(device, seed, || {
            let net = self.init(device);
            // Parameters are created lazily, on first use: use them all now, while the seed is ours.
            let _ = net.forward(Tensor::zeros([1, self.input_planes, 8, 8], device));
            net
        })
    }

    /// This architecture with `added` more residual blocks.
    pub fn deepened(&self, added: usize) -> NetConfig {
        NetConfig { blocks: self.blocks + added, ..self.clone() }
    }

    /// Multiply-adds of one forward pass for one position (convolutions and linear layers), for GFLOP/s figures.
    pub fn flops_per_position(&self) -> f64 {
        let f = self.filters as f64;
        let conv3 = |cin: f64, cout: f64| 64.0 * cin * cout * 9.0;
        let macs = conv3(self.input_planes as f64, f)
            + self.blocks as f64 * 2.0 * conv3(f, f)
            + 64.0 * f * 2.0
            + 128.0 * 65.0
            + 64.0 * f * self.value_channels as f64
            + 64.0 * self.value_channels as f64 * self.value_hidden as f64
            + 2.0 * self.value_hidden as f64
            + 64.0 * f;
        2.0 * macs
    }
}

#[derive(Module, Debug)]
pub struct ConvBn {
    pub(crate) conv: Conv2d,
    pub(crate) bn: BatchNorm,
}

impl ConvBn {
    /// A `k`x`k` convolution (padded to keep the 8x8 grid, no bias: the batch norm has one) and its batch norm.
    fn new(cin: usize, cout: usize, k: usize, device: &Device) -> ConvBn {
        let pad = k / 2;
        let conv = Conv2dConfig::new([cin, cout], [k, k])
            .with_padding(PaddingConfig2d::Explicit(pad, pad, pad, pad))
            .with_bias(false)
            .init(device);
        ConvBn { conv, bn: BatchNormConfig::new(cout).init(device) }
    }

    fn forward(&self, x: Tensor<4>) -> Tensor<4> {
        self.bn.forward(self.conv.forward(x))
    }
}

#[derive(Module, Debug)]
pub struct ResBlock {
    pub(crate) a: ConvBn,
    pub(crate) b: ConvBn,
}

impl ResBlock {
    fn new(filters: usize, device: &Device) -> ResBlock {
        ResBlock { a: ConvBn::new(filters, filters, 3, device), b: ConvBn::new(filters, filters, 3, device) }
    }
}

#[derive(Module, Debug)]
pub struct Network {
    pub(crate) stem: ConvBn,
    pub(crate) tower: Vec<ResBlock>,
    pub(crate) policy_conv: ConvBn,
    pub(crate) policy_fc: Linear,
    pub(crate) value_conv: ConvBn,
    pub(crate) value_fc: Linear,
    pub(crate) value_out: Linear,
    pub(crate) margin_out: Linear,
    ownership_conv: Conv2d,
}

/// The network's outputs for a batch of B positions.
pub struct Output {
    /// [B, 65] policy logits (64 squares in bitboard order, then the pass).
    pub policy: Tensor<2>,
    /// [B, 1] value in [-1, 1].
    pub value: Tensor<2>,
    /// [B, 1] final disc margin / 64.
    pub margin: Tensor<2>,
    /// [B, 64] final ownership in [-1, 1].
    pub ownership: Tensor<2>,
}

/// Runs `make` with the device's random state seeded. Burn's CPU random state is process-wide, so seeded
/// initialisations take turns.
fn seeded<T>(device: &Device, seed: u64, make: impl FnOnce() -> T) -> T {
    static INIT: std::sync::Mutex<()> = std::sync::Mutex::new(());
    let _turn = INIT.lock().unwrap_or_else(|e| e.into_inner());
    device.seed(seed);
    make()
}

impl Network {
    /// The network with `added` residual blocks appended to its tower, each the identity to begin with: its second
    /// batch norm's scale is zero, so the block adds nothing to the residual stream, which the block's closing
    /// ReLU passes unchanged (it is already past a ReLU). The outputs stay the same and training grows the new
    /// blocks from there (the zero-initialised residual branch of Goyal et al., 2017). Their convolutions draw
    /// from `seed`; the parameters already there keep their ids, so an optimiser's state for them carries over.
    pub fn deepened(mut self, added: usize, device: &Device, seed: u64) -> Network {
        let [filters] = self.stem.bn.gamma.dims();
        let blocks: Vec<ResBlock> = seeded(device, seed, || {
            (0..added)
                .map(|_| {
                    let mut block = ResBlock::new(filters, device);
                    block.b.bn.gamma = Initializer::Zeros.init([filters], device);
                    // Parameters are created lazily, on first use: create these now, while the seed is ours.
                    for conv_bn in [&block.a, &block.b] {
                        let _ = (conv_bn.conv.weight.val(), conv_bn.bn.gamma.val(), conv_bn.bn.beta.val());
                    }
                    block
                })
                .collect()
        });
        self.tower.extend(blocks);
        self
    }

    /// `input`: [B, planes, 8, 8].
    pub fn forward(&self, input: Tensor<4>) -> Output {
        let [b, _, _, _] = input.dims();
        let mut x = relu(self.stem.forward(input));
        for block in &self.tower {
            let y = relu(block.a.forward(x.clone()));
            x = relu(block.b.forward(y) + x);
        }
        let policy = self.policy_fc.forward(relu(self.policy_conv.forward(x.clone())).reshape([b, 128]));
        let v = relu(self.value_conv.forward(x.clone()));
        let [_, channels, _, _] = v.dims();
        let v = relu(self.value_fc.forward(v.reshape([b, 64 * channels])));
        let value = tanh(self.value_out.forward(v.clone()));
        let margin = self.margin_out.forward(v);
        let ownership = tanh(self.ownership_conv.forward(x)).reshape([b, 64]);
        Output { policy, value, margin, ownership }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::predict::{predict, Predictor};
    use crate::testing::{positions, tiny};
    use othello_core::{Rules, Symmetry};

    /// The parameter count that bounds an architecture is the one burn's module counts.
    #[test]
    fn parameters_are_counted_as_burn_counts_them() {
        let device = Device::flex();
        for config in
            [NetConfig::new(1, 8), NetConfig::new(2, 32), NetConfig { value_channels: 4, ..NetConfig::new(3, 16) }]
        {
            assert_eq!(config.parameters(), config.init(&device).num_params() as u64, "{config}");
        }
    }

    /// A mistyped width or depth is an error before anything is allocated, also where its count overflows.
    #[test]
    fn architectures_beyond_the_parameter_limit_are_refused() {
        assert_eq!(NetConfig::new(40, 256).validate(), Ok(()));
        for huge in [NetConfig::new(100_000, 64), NetConfig::new(2, 1 << 40), NetConfig::new(usize::MAX, usize::MAX)] {
            let why = huge.validate().expect_err("too many parameters");
            assert!(why.contains("parameters"), "{why}");
        }
    }

    /// Blocks added to a network begin as the identity: its predictions do not move, in inference (running
    /// statistics) and in training (batch statistics) alike.
    #[test]
    fn added_blocks_leave_the_outputs_as_they_were() {
        let (config, net, device) = tiny();
        let rules = Rules::othello();
        let pos = positions(&rules);
        let ids = vec![Symmetry::IDENTITY; pos.len()];
        let deeper = net.clone().deepened(2, &device, 3);
        assert_eq!(deeper.tower.len(), config.blocks + 2);
        assert_eq!(config.deepened(2), NetConfig { blocks: config.blocks + 2, ..config.clone() });
        assert_eq!(
            predict(&Predictor::burn(deeper.clone(), device.clone()), &rules, &pos, &ids),
            predict(&Predictor::burn(net.clone(), device.clone()), &rules, &pos, &ids)
        );

        let train = device.clone().autodiff();
        let input = || Tensor::<4>::random([4, config.input_planes, 8, 8], burn::tensor::Distribution::Default, &train);
        let net = config.init_seeded(&train, 5);
        let x = input();
        let policy = |n: &Network| n.forward(x.clone()).policy.into_data().try_into_vec::<f32>().unwrap();
        let before = policy(&net);
        assert_eq!(policy(&net.deepened(1, &train, 3)), before);
    }
}

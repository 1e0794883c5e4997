//! The network as an ONNX model (opset 17): the same graph as `Network::forward`, built from the exported
//! weights. Only the few ONNX protobuf messages the graph needs are declared here (field numbers from onnx.proto),
//! encoded by `prost`.

use std::collections::BTreeMap;

use prost::Message;

#[derive(Clone, PartialEq, Message)]
pub struct ModelProto {
    #[prost(int64, tag = "1")]
    pub ir_version: i64,
    #[prost(string, tag = "2")]
    pub producer_name: String,
    #[prost(string, tag = "3")]
    pub producer_version: String,
    #[prost(string, tag = "6")]
    pub doc_string: String,
    #[prost(message, optional, tag = "7")]
    pub graph: Option<GraphProto>,
    #[prost(message, repeated, tag = "8")]
    pub opset_import: Vec<OperatorSetIdProto>,
    #[prost(message, repeated, tag = "14")]
    pub metadata_props: Vec<StringStringEntryProto>,
}

#[derive(Clone, PartialEq, Message)]
pub struct StringStringEntryProto {
    #[prost(string, tag = "1")]
    pub key: String,
    #[prost(string, tag = "2")]
    pub value: String,
}

#[derive(Clone, PartialEq, Message)]
pub struct OperatorSetIdProto {
    #[prost(string, tag = "1")]
    pub domain: String,
    #[prost(int64, tag = "2")]
    pub version: i64,
}

#[derive(Clone, PartialEq, Message)]
pub struct GraphProto {
    #[prost(message, repeated, tag = "1")]
    pub node: Vec<NodeProto>,
    #[prost(string, tag = "2")]
    pub name: String,
    #[prost(message, repeated, tag = "5")]
    pub initializer: Vec<TensorProto>,
    #[prost(message, repeated, tag = "11")]
    pub input: Vec<ValueInfoProto>,
    #[prost(message, repeated, tag = "12")]
    pub output: Vec<ValueInfoProto>,
}

#[derive(Clone, PartialEq, Message)]
pub struct NodeProto {
    #[prost(string, repeated, tag = "1")]
    pub input: Vec<String>,
    #[prost(string, repeated, tag = "2")]
    pub output: Vec<String>,
    #[prost(string, tag = "3")]
    pub name: String,
    #[prost(string, tag = "4")]
    pub op_type: String,
    #[prost(message, repeated, tag = "5")]
    pub attribute: Vec<AttributeProto>,
}

#[derive(Clone, PartialEq, Message)]
pub struct AttributeProto {
    #[prost(string, tag = "1")]
    pub name: String,
    #[prost(float, tag = "2")]
    pub f: f32,
    #[prost(int64, tag = "3")]
    pub i: i64,
    #[prost(int64, repeated, tag = "8")]
    pub ints: Vec<i64>,
    /// AttributeType: FLOAT 1, INT 2, INTS 7.
    #[prost(int32, tag = "20")]
    pub r#type: i32,
}

#[derive(Clone, PartialEq, Message)]
pub struct TensorProto {
    #[prost(int64, repeated, tag = "1")]
    pub dims: Vec<i64>,
    /// DataType: FLOAT 1, INT64 7.
    #[prost(int32, tag = "2")]
    pub data_type: i32,
    #[prost(string, tag = "8")]
    pub name: String,
    /// Little-endian values.
    #[prost(bytes = "vec", tag = "9")]
    pub raw_data: Vec<u8>,
}

#[derive(Clone, PartialEq, Message)]
pub struct ValueInfoProto {
    #[prost(string, tag = "1")]
    pub name: String,
    #[prost(message, optional, tag = "2")]
    pub r#type: Option<TypeProto>,
}

#[derive(Clone, PartialEq, Message)]
pub struct TypeProto {
    #[prost(message, optional, tag = "1")]
    pub tensor_type: Option<TensorTypeProto>,
}

#[derive(Clone, PartialEq, Message)]
pub struct TensorTypeProto {
    #[prost(int32, tag = "1")]
    pub elem_type: i32,
    #[prost(message, optional, tag = "2")]
    pub shape: Option<TensorShapeProto>,
}

#[derive(Clone, PartialEq, Message)]
pub struct TensorShapeProto {
    #[prost(message, repeated, tag = "1")]
    pub dim: Vec<Dimension>,
}

#[derive(Clone, PartialEq, Message)]
pub struct Dimension {
    #[prost(int64, optional, tag = "1")]
    pub dim_value: Option<i64>,
    #[prost(string, optional, tag = "2")]
    pub dim_param: Option<String>,
}

const FLOAT: i32 = 1;
const INT64: i32 = 7;

/// A weight: shape and values, as in the safetensors export (PyTorch layout).
pub type Weights = BTreeMap<String, (Vec<usize>, Vec<f32>)>;

struct Graph<'w> {
    weights: &'w Weights,
    nodes: Vec<NodeProto>,
    initializers: Vec<TensorProto>,
    missing: Vec<String>,
}

fn int_attr(name: &str, i: i64) -> AttributeProto {
    AttributeProto { name: name.into(), i, r#type: 2, ..Default::default() }
}
fn ints_attr(name: &str, ints: &[i64]) -> AttributeProto {
    AttributeProto { name: name.into(), ints: ints.to_vec(), r#type: 7, ..Default::default() }
}
fn float_attr(name: &str, f: f32) -> AttributeProto {
    AttributeProto { name: name.into(), f, r#type: 1, ..Default::default() }
}

impl Graph<'_> {
    /// Uses weight `name` as an initializer (noting it if the export lacks it).
    fn weight(&mut self, name: &str) -> String {
        match self.weights.get(name) {
            Some((shape, values)) => {
                if !self.initializers.iter().any(|t| t.name == name) {
                    self.initializers.push(TensorProto {
                        dims: shape.iter().map(|&d| d as i64).collect(),
                        data_type: FLOAT,
                        name: name.into(),
                        raw_data: values.iter().flat_map(|v| v.to_le_bytes()).collect(),
                    });
                }
            }
            None => self.missing.push(name.into()),
        }
        name.into()
    }

    fn node(&mut self, op: &str, inputs: Vec<String>, output: &str, attribute: Vec<AttributeProto>) -> String {
        self.nodes.push(NodeProto {
            input: inputs,
            output: vec![output.into()],
            name: output.into(),
            op_type: op.into(),
            attribute,
        });
        output.into()
    }

    /// Conv (no bias unless the export has one) then BatchNormalization with running statistics.
    fn conv_bn(&mut self, prefix: &str, x: String, kernel: i64) -> String {
        let conv = self.conv(&format!("{prefix}.conv"), x, kernel);
        let inputs = vec![
            conv,
            self.weight(&format!("{prefix}.bn.weight")),
            self.weight(&format!("{prefix}.bn.bias")),
            self.weight(&format!("{prefix}.bn.running_mean")),
            self.weight(&format!("{prefix}.bn.running_var")),
        ];
        self.node("BatchNormalization", inputs, &format!("{prefix}.bn"), vec![float_attr("epsilon", 1e-5)])
    }

    fn conv(&mut self, prefix: &str, x: String, kernel: i64) -> String {
        let pad = kernel / 2;
        let mut inputs = vec![x, self.weight(&format!("{prefix}.weight"))];
        if self.weights.contains_key(&format!("{prefix}.bias")) {
            inputs.push(self.weight(&format!("{prefix}.bias")));
        }
        let attrs = vec![ints_attr("kernel_shape", &[kernel, kernel]), ints_attr("pads", &[pad, pad, pad, pad])];
        self.node("Conv", inputs, prefix, attrs)
    }

    fn linear(&mut self, prefix: &str, x: String) -> String {
        let inputs = vec![x, self.weight(&format!("{prefix}.weight")), self.weight(&format!("{prefix}.bias"))];
        self.node("Gemm", inputs, prefix, vec![int_attr("transB", 1)])
    }

    fn unary(&mut self, op: &str, x: String, out: &str) -> String {
        self.node(op, vec![x], out, vec![])
    }
}

fn tensor_info(name: &str, dims: &[Option<i64>]) -> ValueInfoProto {
    let dim = dims
        .iter()
        .map(|d| match d {
            Some(v) => Dimension { dim_value: Some(*v), dim_param: None },
            None => Dimension { dim_value: None, dim_param: Some("batch".into()) },
        })
        .collect();
    ValueInfoProto {
        name: name.into(),
        r#type: Some(TypeProto {
            tensor_type: Some(TensorTypeProto { elem_type: FLOAT, shape: Some(TensorShapeProto { dim }) }),
        }),
    }
}

/// The ONNX model of a network with `blocks` residual blocks and `planes` input planes: input `planes`
/// [batch, planes, 8, 8]; outputs `policy` [batch, 65] (logits), `value` [batch, 1], `margin` [batch, 1],
/// `ownership` [batch, 64]. `metadata` goes into the model's metadata_props. Errors name missing weights.
pub fn onnx_model(
    weights: &Weights,
    blocks: usize,
    planes: usize,
    metadata: &[(String, String)],
) -> Result<Vec<u8>, String> {
    let mut g = Graph { weights, nodes: vec![], initializers: vec![], missing: vec![] };
    let stem = g.conv_bn("stem", "planes".into(), 3);
    let mut x = g.unary("Relu", stem, "stem.relu");
    for i in 0..blocks {
        let a = g.conv_bn(&format!("tower.{i}.a"), x.clone(), 3);
        let a = g.unary("Relu", a, &format!("tower.{i}.a.relu"));
        let b = g.conv_bn(&format!("tower.{i}.b"), a, 3);
        let sum = g.node("Add", vec![b, x], &format!("tower.{i}.add"), vec![]);
        x = g.unary("Relu", sum, &format!("tower.{i}.relu"));
    }
    let p = g.conv_bn("policy_conv", x.clone(), 1);
    let p = g.unary("Relu", p, "policy_conv.relu");
    let p = g.node("Flatten", vec![p], "policy_flat", vec![int_attr("axis", 1)]);
    let p = g.linear("policy_fc", p);
    g.unary("Identity", p, "policy");
    let v = g.conv_bn("value_conv", x.clone(), 1);
    let v = g.unary("Relu", v, "value_conv.relu");
    let v = g.node("Flatten", vec![v], "value_flat", vec![int_attr("axis", 1)]);
    let v = g.linear("value_fc", v);
    let v = g.unary("Relu", v, "value_fc.relu");
    let value = g.linear("value_out", v.clone());
    g.unary("Tanh", value, "value");
    let margin = g.linear("margin_out", v);
    g.unary("Identity", margin, "margin");
    let o = g.conv("ownership_conv", x, 1);
    let o = g.unary("Tanh", o, "ownership_tanh");
    g.initializers.push(TensorProto {
        dims: vec![2],
        data_type: INT64,
        name: "ownership_shape".into(),
        raw_data: [-1i64, 64].iter().flat_map(|v| v.to_le_bytes()).collect(),
    });
    g.node("Reshape", vec![o, "ownership_shape".into()], "ownership", vec![]);
    if !g.missing.is_empty() {
        return Err(format!("weights missing from the export: {}", g.missing.join(", ")));
    }
    let model = ModelProto {
        ir_version: 8,
        producer_name: "othello-zero".into(),
        producer_version: env!("CARGO_PKG_VERSION").into(),
        doc_string: "Othello policy/value network; see the model card beside this file".into(),
        graph: Some(GraphProto {
            node: g.nodes,
            name: "othello_zero".into(),
            initializer: g.initializers,
            input: vec![tensor_info("planes", &[None, Some(planes as i64), Some(8), Some(8)])],
            output: vec![
                tensor_info("policy", &[None, Some(65)]),
                tensor_info("value", &[None, Some(1)]),
                tensor_info("margin", &[None, Some(1)]),
                tensor_info("ownership", &[None, Some(64)]),
            ],
        }),
        opset_import: vec![OperatorSetIdProto { domain: String::new(), version: 17 }],
        metadata_props: metadata
            .iter()
            .map(|(k, v)| StringStringEntryProto { key: k.clone(), value: v.clone() })
            .collect(),
    };
    Ok(model.encode_to_vec())
}

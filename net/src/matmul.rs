//! The CPU network's matrix products, through the `gemm` crate's SIMD kernels: on the folded network's shapes (a
//! few hundred rows by 32 to 300 columns) they pack their operands at less cost than ndarray's `matrixmultiply`,
//! about 1.5 times as fast here. ndarray's product is the portable twin, and a test holds the two together.

use ndarray::{Array2, ArrayView2};

/// `out` = `lhs` x `rhs` + (`out` where `accumulate`), every matrix in standard (row-major) layout.
pub(crate) fn matmul(lhs: ArrayView2<f32>, rhs: ArrayView2<f32>, out: &mut Array2<f32>, accumulate: bool) {
    let ((m, k), n) = (lhs.dim(), rhs.ncols());
    assert!(rhs.nrows() == k && out.dim() == (m, n), "a product of {m}x{k} by {:?} into {:?}", rhs.dim(), out.dim());
    let lhs = lhs.as_slice().expect("the left operand in standard layout");
    let rhs = rhs.as_slice().expect("the right operand in standard layout");
    let out = out.as_slice_mut().expect("the product in standard layout");
    // SAFETY: `lhs`, `rhs` and `out` are slices of exactly m*k, k*n and m*n values in row-major order (the shapes
    // checked above, the layouts by `as_slice`), so with a row stride of the column count and a column stride of 1
    // every element gemm reads or writes is inside them; `out` is borrowed mutably, so nothing else aliases it.
    unsafe {
        gemm::gemm(
            m,
            n,
            k,
            out.as_mut_ptr(),
            1,
            n as isize,
            accumulate,
            lhs.as_ptr(),
            1,
            k as isize,
            rhs.as_ptr(),
            1,
            n as isize,
            1.0,
            1.0,
            false,
            false,
            false,
            gemm::Parallelism::None,
        );
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use ndarray::linalg::general_mat_mul;
    use rand::{Rng, SeedableRng};

    /// The kernel agrees with ndarray's product (its portable twin) on random matrices of the network's shapes and
    /// of odd ones, with and without accumulating into the output.
    #[test]
    fn the_kernel_agrees_with_ndarrays_product() {
        let mut rng = rand_pcg::Pcg64Mcg::seed_from_u64(5);
        for (m, k, n) in [(512, 288, 32), (512, 32, 32), (512, 32, 1), (8, 2048, 65), (8, 32, 1), (3, 5, 7), (1, 1, 1)]
        {
            let mut random = |rows, cols| Array2::from_shape_fn((rows, cols), |_| rng.random_range(-1.0f32..1.0));
            let (lhs, rhs, start) = (random(m, k), random(k, n), random(m, n));
            for accumulate in [false, true] {
                let mut want = start.clone();
                general_mat_mul(1.0, &lhs, &rhs, if accumulate { 1.0 } else { 0.0 }, &mut want);
                let mut got = start.clone();
                matmul(lhs.view(), rhs.view(), &mut got, accumulate);
                let worst = want.iter().zip(&got).map(|(a, b)| (a - b).abs()).fold(0.0f32, f32::max);
                assert!(worst < 1e-4 * (k as f32).sqrt(), "{m}x{k}x{n}, accumulate {accumulate}: off by {worst}");
            }
        }
    }
}

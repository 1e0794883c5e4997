//! FNV-1a, a hash that stays the same across builds and platforms (std's hasher may change between
//! releases): the config hash of every checkpoint's sidecar, seeds derived from names, the shipped networks' cache.

/// The 64-bit FNV-1a hash of `text`.
pub fn fnv1a(text: &str) -> u64 {
    fnv1a_bytes(text.as_bytes())
}

/// The 64-bit FNV-1a hash of `bytes`.
pub fn fnv1a_bytes(bytes: &[u8]) -> u64 {
    bytes.iter().fold(0xcbf2_9ce4_8422_2325, |h, b| (h ^ *b as u64).wrapping_mul(0x0000_0100_0000_01b3))
}

#[cfg(test)]
mod tests {
    /// The published FNV-1a 64-bit test vectors.
    #[test]
    fn matches_the_reference_values() {
        assert_eq!(super::fnv1a(""), 0xcbf2_9ce4_8422_2325);
        assert_eq!(super::fnv1a("a"), 0xaf63_dc4c_8601_ec8c);
        assert_eq!(super::fnv1a("foobar"), 0x8594_4171_f739_67e8);
        assert_eq!(super::fnv1a_bytes(b"foobar"), 0x8594_4171_f739_67e8);
    }
}

//! Content-hash ids: a row's id is a hash of what defines it, never a counter or a time.

use sha2::{Digest, Sha256};

/// A 32-hex-digit id from the given parts (each length-prefixed, so `("ab","c")` and
/// `("a","bc")` differ).
pub fn content_id(parts: &[&[u8]]) -> String {
    let mut h = Sha256::new();
    for p in parts {
        h.update((p.len() as u64).to_le_bytes());
        h.update(p);
    }
    hex::encode(&h.finalize()[..16])
}

/// Hex sha256 of bytes.
pub fn sha256_hex(bytes: &[u8]) -> String {
    hex::encode(Sha256::digest(bytes))
}

#[cfg(test)]
mod tests {
    use super::content_id;
    use proptest::prelude::*;

    proptest! {
        #[test]
        fn stable_and_prefix_free(a in ".*", b in ".*") {
            let id = content_id(&[a.as_bytes(), b.as_bytes()]);
            prop_assert_eq!(id.len(), 32);
            prop_assert_eq!(&id, &content_id(&[a.as_bytes(), b.as_bytes()]));
            let joined = format!("{a}{b}");
            prop_assert_ne!(id, content_id(&[joined.as_bytes()]));
        }
    }
}

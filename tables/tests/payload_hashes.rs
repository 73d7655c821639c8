//! The Ioiwari table's bytes are pinned: a builder change that alters them fails here
//! (the tonga table's are pinned in its whole-table test, which builds it anyway).
//!
//! The hashes are those of the tables built before the retrograde builder took
//! u64 indices, keeps-turn and same-layer edges (checked byte for byte then).
//! This only detects a change: the values themselves are checked against a
//! HashMap-memoized negamax in `ioiwari_table.rs`.

use tabula_tables::format::encode_records;
use tabula_tables::ioiwari;
use xxhash_rust::xxh3::xxh3_64;

#[test]
fn ioiwari_payload_is_unchanged() {
    for parallel in [false, true] {
        let payload = encode_records(&ioiwari::solve(parallel, &|_| {}), ioiwari::SPEC.layout);
        assert_eq!(payload.len(), 559_872);
        assert_eq!(
            xxh3_64(&payload),
            0xff7c_63bd_fd98_13a7,
            "parallel {parallel}"
        );
    }
}

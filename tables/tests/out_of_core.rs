//! The out-of-core builder writes the same bytes as the in-memory one.

use std::fs;
use std::path::Path;

use tabula_solver::ioiwari::Params;
use tabula_solver::kalah::{Capture, Ending, Rules};
use tabula_tables::ioiwari::{self, Variant, VariantTable};
use tabula_tables::kalah::{self, KalahGame};
use tabula_tables::{Table, TypedTable};

/// Files in `dir`, so that a build can be seen to leave no temporary file.
fn files(dir: &Path) -> usize {
    fs::read_dir(dir).unwrap().count()
}

#[test]
fn ioiwari_tables_out_of_core_equal_the_in_memory_files() {
    let dir = tempfile::tempdir().unwrap();
    for params in [
        Params::default(),
        Params::new(5, 3, 10, 1, 3).unwrap(),
        Params::new(9, 3, 18, 2, 2).unwrap(),
    ] {
        let (memory, mapped) = (dir.path().join("memory"), dir.path().join("mapped"));
        ioiwari::build_variant(&memory, &params, &|_| {}).unwrap();
        let reports = std::sync::Mutex::new(Vec::new());
        ioiwari::build_variant_out_of_core(&mapped, &params, &|done| {
            reports.lock().unwrap().push(done)
        })
        .unwrap();
        assert_eq!(
            fs::read(&memory).unwrap(),
            fs::read(&mapped).unwrap(),
            "{params}"
        );
        assert_eq!(files(dir.path()), 2);
        // Every record is reported once, in the end.
        let reports = reports.into_inner().unwrap();
        assert_eq!(reports.iter().max(), Some(&params.boards()));
        let table = VariantTable::new_for(Variant { params }, Table::open(&mapped).unwrap());
        assert_eq!(
            table.unwrap().check_records().unwrap() as u64,
            params.boards()
        );
    }
}

#[test]
fn kalah_tables_out_of_core_equal_the_in_memory_files() {
    let dir = tempfile::tempdir().unwrap();
    for (m, n) in [(2, 3), (3, 2)] {
        for capture in [Capture::Always, Capture::NonEmpty] {
            for ending in [Ending::AfterAnyMove, Ending::MoverStuck] {
                let rules = Rules::new(m, n)
                    .unwrap()
                    .with_capture(capture)
                    .with_ending(ending);
                let (memory, mapped) = (dir.path().join("memory"), dir.path().join("mapped"));
                kalah::build(&memory, &rules, &|_| {}).unwrap();
                kalah::build_out_of_core(&mapped, &rules, &|_| {}).unwrap();
                let bytes = fs::read(&mapped).unwrap();
                assert_eq!(fs::read(&memory).unwrap(), bytes, "{rules:?}");
                let table = Table::open(&mapped).unwrap();
                let table = TypedTable::new_for(KalahGame { rules }, table).unwrap();
                assert!(table.check_records().unwrap() > 0);
            }
        }
    }
}

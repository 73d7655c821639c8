//! The builders agree byte for byte: out of core and in memory, and the IOI
//! table built as a variant and as itself.

use std::fs;
use std::path::Path;

use tabula_solver::ioiwari::Params;
use tabula_solver::kalah::{Capture, Ending, Rules};
use tabula_tables::ioiwari::{self, Variant, VariantTable};
use tabula_tables::kalah::{self, KalahGame};
use tabula_tables::{Records, Table, Tabulated, TypedTable};

/// Files in `dir`, so that a build can be seen to leave no temporary file.
fn files(dir: &Path) -> usize {
    fs::read_dir(dir).unwrap().count()
}

#[test]
fn the_ioi_game_built_as_a_variant_is_the_ioi_table() {
    // `tabula build ioiwari` builds every ring, the IOI one included, as a variant.
    let dir = tempfile::tempdir().unwrap();
    let (ioi, variant) = (dir.path().join("ioi"), dir.path().join("variant"));
    ioiwari::build(&ioi, &|_| {}).unwrap();
    let params = Params::default();
    assert!(params.is_ioi_table());
    ioiwari::build_variant(&variant, &params, &|_| {}).unwrap();
    assert_eq!(fs::read(&ioi).unwrap(), fs::read(&variant).unwrap());
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
        ioiwari::build_variant_out_of_core(&mapped, &params, Records::WithMoves, &|done| {
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
                kalah::build_out_of_core(&mapped, &rules, Records::WithMoves, &|_| {}).unwrap();
                let bytes = fs::read(&mapped).unwrap();
                assert_eq!(fs::read(&memory).unwrap(), bytes, "{rules:?}");
                let table = Table::open(&mapped).unwrap();
                let table = TypedTable::new_for(KalahGame { rules }, table).unwrap();
                assert!(table.check_records().unwrap() > 0);
            }
        }
    }
}

/// Every record's first byte: the values of a table with masks.
fn values_of(path: &Path) -> Vec<u8> {
    let table = Table::open(path).unwrap();
    (0..table.len())
        .map(|i| table.value(i) as i8 as u8)
        .collect()
}

#[test]
fn tables_of_values_only_hold_the_values_and_give_the_same_moves() {
    let dir = tempfile::tempdir().unwrap();
    let params = Params::new(6, 4, 0, 0, 4).unwrap();
    let (full, values) = (dir.path().join("full"), dir.path().join("values"));
    ioiwari::build_variant(&full, &params, &|_| {}).unwrap();
    ioiwari::build_variant_out_of_core(&values, &params, Records::ValuesOnly, &|_| {}).unwrap();
    let game = Variant { params };
    let values_table = VariantTable::new_for(game, Table::open(&values).unwrap()).unwrap();
    assert!(values_table.values_only());
    assert_eq!(values_table.table().header().layout.record_size(), 1);
    let payload: Vec<u8> = (0..values_table.table().len())
        .map(|i| values_table.table().value(i) as i8 as u8)
        .collect();
    assert_eq!(payload, values_of(&full));
    assert_eq!(
        values_table.check_records().unwrap() as u64,
        params.boards()
    );
    let full_table = VariantTable::new_for(game, Table::open(&full).unwrap()).unwrap();
    for index in 0..params.boards() {
        let ring = game.position(index);
        assert_eq!(
            values_table.best_mask(&ring).unwrap(),
            full_table.best_mask(&ring).unwrap(),
            "{ring}"
        );
    }

    // Kalah, whose moves may keep the turn.
    let rules = Rules::new(3, 2).unwrap();
    kalah::build(&full, &rules, &|_| {}).unwrap();
    kalah::build_out_of_core(&values, &rules, Records::ValuesOnly, &|_| {}).unwrap();
    assert!(fs::read(&values).unwrap().len() < fs::read(&full).unwrap().len());
    let game = KalahGame { rules };
    let values_table = TypedTable::new_for(game, Table::open(&values).unwrap()).unwrap();
    let full_table = TypedTable::new_for(game, Table::open(&full).unwrap()).unwrap();
    assert!(values_table.check_records().unwrap() > 0);
    let start = rules.start();
    assert_eq!(
        values_table.best_mask(&start).unwrap(),
        full_table.best_mask(&start).unwrap()
    );
    assert_eq!(
        values_table.value(&start).unwrap(),
        full_table.value(&start).unwrap()
    );
}

#[test]
fn a_wrong_value_in_a_table_of_values_only_is_found() {
    use tabula_tables::format::{Meta, table_bytes};
    let dir = tempfile::tempdir().unwrap();
    let params = Params::new(5, 3, 10, 1, 3).unwrap();
    let game = Variant { params };
    let path = dir.path().join("values");
    ioiwari::build_variant_out_of_core(&path, &params, Records::ValuesOnly, &|_| {}).unwrap();
    let mut payload = values_of(&path);
    // A board with moves gets a value one off; the checksums are made anew.
    let index = (0..params.boards())
        .find(|&i| game.position(i).pits().iter().sum::<u8>() == 6)
        .unwrap();
    payload[index as usize] = payload[index as usize].wrapping_add(1);
    let spec = Records::ValuesOnly.spec(&game);
    fs::write(&path, table_bytes(&spec, &Meta::default(), &payload)).unwrap();
    let table = VariantTable::new_for(game, Table::open(&path).unwrap()).unwrap();
    let error = table.check_records().unwrap_err().to_string();
    assert!(error.contains("its children give"), "{error}");
    let error = table
        .best_mask(&game.position(index))
        .unwrap_err()
        .to_string();
    assert!(error.contains("disagrees with the children"), "{error}");
}

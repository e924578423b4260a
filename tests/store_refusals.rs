//! The latest refusal under a filter (the Refusals screen's `L`): read
//! backwards through the time index for filters that keep many runs, from
//! the runs for a task or run filter; the same refusal either way.

mod import_util;
mod store_util;

use import_util::*;
use rung::filter::Filter;
use rung::store::browse::latest_refusal;
use rusqlite::Connection;
use store_util::*;

#[test]
fn the_latest_refusal_is_the_latest_the_filter_keeps() {
    let (_dir, db) = setup();
    import(&db, &["-q", &path(DESK)]);
    let conn = Connection::open(&db).unwrap();
    // desk.jsonl's refusals: r-104 step 1 (gpt-4o, discover) on
    // 2026-11-10 08:00:01; r-102 steps 2-4 (gpt-4o, modify) on 2026-11-18
    // at 14:00:04, :07 and :11. qwen3:8b ran r-101 and r-103, refused
    // nothing.
    let nov_10 = Some(1_794_297_601_000_000);
    let nov_18 = Some(1_795_010_411_000_000);
    let m = |s: &str| vec![s.to_string()];
    let with = |edit: &dyn Fn(&mut Filter)| {
        let mut f = Filter::default();
        edit(&mut f);
        f
    };
    let cases = [
        (Filter::default(), nov_18),
        (with(&|f| f.models = m("gpt-4o")), nov_18),
        (with(&|f| f.models = m("qwen3:8b")), None),
        (with(&|f| f.phases = m("discover")), nov_10),
        (with(&|f| f.catalogues = m("desk-2")), None),
        // The window is the screen's to choose: a filter's is left out.
        (with(&|f| f.until = Some(1_794_355_200_000_000)), nov_18),
        // From the runs.
        (with(&|f| f.runs = m("r-104")), nov_10),
        (with(&|f| f.runs = m("r-101")), None),
    ];
    for (f, latest) in cases {
        assert_eq!(latest_refusal(&conn, &f).unwrap(), latest, "{f:?}");
    }
}

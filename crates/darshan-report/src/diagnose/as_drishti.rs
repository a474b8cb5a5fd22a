//! The rules as Drishti counts: every record of a module's sums and the
//! software loading's files too. Our rules leave out what is not the
//! application's I/O (software loading, N02; the MPI library's own files,
//! N01); where that changes a conclusion, the report says so, so that a
//! reader holding Drishti's output beside ours (and the comparison in
//! tests/report/check_against_drishti.py) sees why: a rule that fires
//! only with them counted is held back with that reason, and a finding
//! that fires only without them says Drishti's count would not.

use super::{drishti, lustre, seed, Ctx};
use crate::model::{Finding, Withheld};

/// What a Drishti-counted pass concluded: codes fired, rules held back.
pub struct DrishtiView {
    fired: Vec<String>,
    held: Vec<Withheld>,
    /// What is counted only in that pass, as the reasons name it, and
    /// in short.
    what: (&'static str, &'static str),
}

/// The rules' conclusions counting as Drishti does; None where the log
/// holds nothing that is not the application's.
pub fn counts(cx: &Ctx) -> Option<DrishtiView> {
    const SOFTWARE: &str =
        "software loading (interpreter modules, bytecode, installed packages, shared libraries, Java archives; N02)";
    const INTERNAL: &str = "the MPI library's own files (N01)";
    const BOTH: &str = "software loading (N02) and the MPI library's own files (N01)";
    let what = match (cx.software.is_empty(), cx.internal.is_empty()) {
        (true, true) => return None,
        (false, true) => (SOFTWARE, "software loading (N02)"),
        (true, false) => (INTERNAL, INTERNAL),
        (false, false) => (BOTH, BOTH),
    };
    let kept = cx.withheld.take();
    cx.as_drishti.set(true);
    let metrics = seed::metrics(cx, cx.heatmaps);
    let fired = drishti::insights(cx)
        .into_iter()
        .chain(lustre::advice(cx))
        .chain(seed::findings(cx, &metrics))
        .map(|f| f.code)
        .collect();
    cx.as_drishti.set(false);
    let held = cx.withheld.replace(kept);
    Some(DrishtiView { fired, held, what })
}

impl DrishtiView {
    /// Tell, beside the application's findings `out`: the rules that fire
    /// (or are held back) only as Drishti counts are held back with that
    /// reason, not dropped silently; the findings that fire only without
    /// them say so in their evidence.
    pub fn tell(self, cx: &Ctx, out: &mut [Finding]) {
        let decided =
            |code: &str| out.iter().any(|f| f.code == code) || cx.withheld.borrow().iter().any(|w| w.code == code);
        for code in &self.fired {
            if !decided(code) {
                cx.withhold(code, format!("fires only on {}: not the application's I/O", self.what.0));
            }
        }
        for w in &self.held {
            if !decided(&w.code) {
                let why = format!("{} (with {} counted; without them the rule does not apply)", w.reason, self.what.0);
                cx.withhold(&w.code, why);
            }
        }
        for f in out.iter_mut().filter(|f| !self.fired.contains(&f.code)) {
            f.evidence.push(format!("not fired with {} counted, as Drishti counts them", self.what.1));
        }
    }
}

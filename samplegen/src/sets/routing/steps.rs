//! What the runs are built from: retrievals, the decision recorder and the
//! repository's files.

use serde_json::{Value, json};

use super::catalogue::policy;
use crate::model::{Decision, Retrieval};

pub(super) fn retrieval(k: u32, query: &str, names: &[(&str, f64)]) -> Retrieval {
    Retrieval {
        k,
        selector: Some("kw-overlap@1".into()),
        query: Some(query.into()),
        candidates: names.iter().map(|(n, s)| (n.to_string(), *s)).collect(),
    }
}

pub(super) struct R {
    pub(super) id: String,
    pub(super) t: i64,
    pub(super) step: u32,
    pub(super) turn: u32,
    pub(super) out: Vec<Decision>,
}

impl R {
    pub(super) fn d(&mut self, phase: &str, sel: Option<&str>, args: Value) -> Decision {
        self.step += 1;
        self.turn += 1;
        self.t += 5;
        let d = Decision::new(&self.id, self.step, sel)
            .turn(self.turn)
            .at(self.t)
            .phase(phase)
            .policy(policy(phase));
        if sel.is_some() && !args.is_null() {
            d.call(&format!("call_{}", self.step), args)
        } else {
            d
        }
    }
    pub(super) fn push(&mut self, d: Decision) {
        self.out.push(d);
    }
}

pub(super) const PATHS: [&str; 30] = [
    "src/auth/token.py",
    "src/auth/session.py",
    "src/billing/invoice.py",
    "src/billing/proration.py",
    "src/api/routes.py",
    "src/api/errors.py",
    "src/db/migrations/0042_add_index.py",
    "src/db/pool.py",
    "src/search/indexer.py",
    "src/search/query.py",
    "src/web/templates/cart.html",
    "src/web/static/app.js",
    "src/jobs/nightly_export.py",
    "src/jobs/retry.py",
    "src/mail/sender.py",
    "src/mail/templates.py",
    "src/cache/redis_client.py",
    "src/cache/keys.py",
    "src/flags/rollout.py",
    "src/flags/client.py",
    "src/pdf/render.py",
    "src/geo/lookup.py",
    "src/webhooks/dispatch.py",
    "src/webhooks/sign.py",
    "src/ledger/postings.py",
    "src/ledger/balance.py",
    "src/images/resize.py",
    "src/rate/limiter.py",
    "config/settings.py",
    "Makefile",
];

pub(super) fn discover_retrieval(path: &str) -> Retrieval {
    let file = path.rsplit('/').next().unwrap();
    retrieval(
        4,
        &format!("open {file}"),
        &[
            ("search_code", 0.91),
            ("ask_user", 0.74),
            ("read_file", 0.72),
            ("find_file", 0.66),
            ("edit_file", 0.58),
            ("lookup_symbol", 0.44),
            ("list_directory", 0.31),
            ("git_log", 0.22),
        ],
    )
}

pub(super) fn file_text(path: &str) -> Value {
    json!({"path": path, "lines": 40 + path.len() * 3, "text": format!("# {path}\n\"\"\"Module docstring.\"\"\"\n...\n")})
}

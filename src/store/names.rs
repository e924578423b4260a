//! The compact store (schema 3): tool names interned once per database
//! (`tool_names`), and menus stored by id (`menus`), identical ones once.
//!
//! A packed name list is a JSON array of `tool_names` ids (`[3,17,5]`); a
//! packed retrieval is its JSON object with `candidates` replaced by `c`, a
//! flat array of id and score pairs (`[3,0.93,17,null]`). Both spellings
//! tell themselves apart from the named ones (`["a","b"]`, `candidates`), so
//! a value written by hand with names (or by an older rung) still reads.

use std::fmt::Write as _;
use std::io::Write as _;

use rustc_hash::FxHashMap as HashMap;

use rusqlite::{Connection, params};

use crate::error::Result;
use crate::model::Retrieval;

/// Menus remembered for sharing within one batch, at most.
const MENU_MEMORY: usize = 200_000;

/// A menu's key for sharing: the first half of the SHA-256 of its kind and
/// its JSON text with names (computed off the writing thread).
pub(crate) type MenuKey = [u8; 16];

/// The sharing key kind of a retrieval's head (kinds 0 to 5 are menus).
const HEAD_KIND: u8 = 6;
/// The sharing key kind of a decision's `outcome` text (schema 7).
const OUTCOME_KIND: u8 = 7;

pub(crate) fn menu_key(kind: u8, text: &str) -> MenuKey {
    use sha2::{Digest, Sha256};
    let mut h = Sha256::new();
    h.update([kind]);
    h.update(text.as_bytes());
    let full: [u8; 32] = h.finalize().into();
    let mut key = [0u8; 16];
    key.copy_from_slice(&full[..16]);
    key
}

/// The interned tool names, by id.
#[derive(Default)]
pub(crate) struct Names {
    by_id: Vec<Option<String>>,
}

impl Names {
    pub(crate) fn load(conn: &Connection) -> Result<Names> {
        let mut names = Names::default();
        let mut s = conn.prepare_cached("SELECT id, name FROM tool_names")?;
        let mut rows = s.query([])?;
        while let Some(r) = rows.next()? {
            names.set(r.get(0)?, r.get(1)?);
        }
        Ok(names)
    }

    fn set(&mut self, id: i64, name: String) {
        let i = id.max(0) as usize;
        if self.by_id.len() <= i {
            self.by_id.resize(i + 1, None);
        }
        self.by_id[i] = Some(name);
    }

    /// One more than the highest id.
    pub(crate) fn len(&self) -> usize {
        self.by_id.len()
    }

    pub(crate) fn name(&self, id: u64) -> Option<&str> {
        self.by_id.get(id as usize).and_then(|n| n.as_deref())
    }

    /// The names of a packed list's ids; `Err` says what is wrong.
    pub(crate) fn ids_to_names(&self, ids: &[u64]) -> std::result::Result<Vec<String>, String> {
        ids.iter()
            .map(|&id| {
                self.name(id)
                    .map(str::to_string)
                    .ok_or_else(|| format!("tool name id {id} is not in tool_names"))
            })
            .collect()
    }
}

/// Whether a stored list is packed (ids), not names.
pub(crate) fn is_packed_list(s: &str) -> bool {
    let rest = s.trim_start().strip_prefix('[').unwrap_or("");
    rest.trim_start()
        .as_bytes()
        .first()
        .is_some_and(|b| b.is_ascii_digit())
}

/// What the writer keeps of a retrieval to pack it: the object's text up to
/// its candidates (`{"k":3,"selector":"…"`), when it has nothing else a
/// flat id and score array would lose.
pub(crate) fn retrieval_head(r: &Retrieval) -> Option<String> {
    let plain = |v: &serde_json::Value| match v {
        serde_json::Value::Null => true,
        serde_json::Value::Object(m) => m.is_empty(),
        _ => false,
    };
    if !plain(&r.extra) || !r.candidates.iter().all(|c| plain(&c.extra)) {
        return None;
    }
    // Written into one buffer (this runs for every decision of an import).
    let mut head: Vec<u8> = Vec::with_capacity(
        16 + r.selector.as_ref().map_or(0, |s| s.len() + 16)
            + r.query.as_ref().map_or(0, |q| q.len() + 16),
    );
    write!(head, "{{\"k\":{}", r.k).ok()?;
    for (key, v) in [("selector", &r.selector), ("query", &r.query)] {
        if let Some(v) = v {
            write!(head, ",\"{key}\":").ok()?;
            serde_json::to_writer(&mut head, v).ok()?;
        }
    }
    String::from_utf8(head).ok()
}

/// A stored retrieval's JSON as a retrieval, when it is one rung wrote
/// (k, selector, query and `{name, score}` candidates, nothing else).
fn retrieval_from_json(v: &serde_json::Value) -> Option<Retrieval> {
    use serde_json::Value;
    let m = v.as_object()?;
    if m.keys()
        .any(|k| !matches!(k.as_str(), "k" | "selector" | "query" | "candidates"))
    {
        return None;
    }
    let text = |key: &str| match m.get(key) {
        None => Some(None),
        Some(Value::String(s)) => Some(Some(s.clone())),
        Some(_) => None,
    };
    let mut candidates = Vec::new();
    for c in m.get("candidates")?.as_array()? {
        let c = c.as_object()?;
        if c.keys().any(|k| k != "name" && k != "score") {
            return None;
        }
        candidates.push(crate::model::Candidate {
            name: c.get("name")?.as_str()?.to_string(),
            score: match c.get("score") {
                None | Some(Value::Null) => None,
                Some(s) => Some(s.as_f64()?),
            },
            extra: Value::Null,
        });
    }
    Some(Retrieval {
        k: u32::try_from(m.get("k")?.as_u64()?).ok()?,
        selector: text("selector")?,
        query: text("query")?,
        candidates,
        extra: Value::Null,
    })
}

/// What a retrieval's head (see [`retrieval_head`]) holds besides `k`, as
/// the `menus` row it shares (`{"selector":…,"query":…}`), with its sharing
/// key; `None` when it holds nothing else.
pub(crate) fn shared_head(k: u32, head: &str) -> Option<(String, MenuKey)> {
    // The head less its `{"k":N,` prefix: what follows k.
    let rest = head
        .strip_prefix("{\"k\":")?
        .strip_prefix(k.to_string().as_str())?
        .strip_prefix(',')
        .filter(|rest| !rest.is_empty())?;
    let body = format!("{{{rest}}}");
    let key = menu_key(HEAD_KIND, &body);
    Some((body, key))
}

/// Interns names and menus while a batch writes (and classifies).
#[derive(Default)]
pub(crate) struct Packer {
    pub(crate) names: Names,
    ids: HashMap<String, i64>,
    menus: HashMap<MenuKey, i64>,
    loaded: bool,
}

impl Packer {
    fn ensure_loaded(&mut self, conn: &Connection) -> Result<()> {
        if !self.loaded {
            self.names = Names::load(conn)?;
            self.ids = self
                .names
                .by_id
                .iter()
                .enumerate()
                .filter_map(|(i, n)| n.as_ref().map(|n| (n.clone(), i as i64)))
                .collect();
            self.loaded = true;
        }
        Ok(())
    }

    /// The names as they stand (loaded on first use).
    pub(crate) fn names(&mut self, conn: &Connection) -> Result<&Names> {
        self.ensure_loaded(conn)?;
        Ok(&self.names)
    }

    /// A name's id, interning it when new.
    pub(crate) fn intern(&mut self, conn: &Connection, name: &str) -> Result<i64> {
        self.ensure_loaded(conn)?;
        if let Some(&id) = self.ids.get(name) {
            return Ok(id);
        }
        conn.prepare_cached("INSERT INTO tool_names (name) VALUES (?1)")?
            .execute([name])?;
        let id = conn.last_insert_rowid();
        self.ids.insert(name.to_string(), id);
        self.names.set(id, name.to_string());
        Ok(id)
    }

    /// A name list packed as ids (`[3,17]`).
    pub(crate) fn list_text(&mut self, conn: &Connection, names: &[String]) -> Result<String> {
        let mut out = String::with_capacity(names.len() * 4 + 2);
        out.push('[');
        for (i, n) in names.iter().enumerate() {
            if i > 0 {
                out.push(',');
            }
            let id = self.intern(conn, n)?;
            let _ = write!(out, "{id}");
        }
        out.push(']');
        Ok(out)
    }

    /// A name list as a menu body: dense (schema 7, see `dense.rs`), else
    /// packed as ids.
    fn list_body(&mut self, conn: &Connection, names: &[String]) -> Result<String> {
        let ids = names
            .iter()
            .map(|n| self.intern(conn, n))
            .collect::<Result<Vec<_>>>()?;
        match super::dense::list_body(&ids) {
            Some(body) => Ok(body),
            None => self.list_text(conn, names),
        }
    }

    /// An inline label stored as characters (schema 7, see `dense.rs`)
    /// when `text`, its JSON, is what the view rebuilds from its names.
    pub(crate) fn label_body(&mut self, conn: &Connection, text: &str) -> Result<Option<String>> {
        #[derive(serde::Deserialize)]
        struct Label {
            acceptable: Vec<String>,
            forbidden: Vec<String>,
        }
        let Ok(l) = serde_json::from_str::<Label>(text) else {
            return Ok(None);
        };
        if super::dense::label_json(&l.acceptable, &l.forbidden).as_deref() != Some(text) {
            return Ok(None);
        }
        let mut ids = |names: &[String]| -> Result<Vec<i64>> {
            names.iter().map(|n| self.intern(conn, n)).collect()
        };
        let (a, f) = (ids(&l.acceptable)?, ids(&l.forbidden)?);
        Ok(super::dense::label_body(&a, &f))
    }

    /// The id of a menu with this body, stored once per batch.
    pub(crate) fn menu(&mut self, conn: &Connection, body: String) -> Result<i64> {
        let key = menu_key(0, &body);
        self.menu_keyed(conn, key, |_, _| Ok(body))
    }

    /// The id of the menu with this key: the one stored by this batch, or
    /// a new row with the body `build` makes.
    pub(crate) fn menu_keyed(
        &mut self,
        conn: &Connection,
        key: MenuKey,
        build: impl FnOnce(&mut Packer, &Connection) -> Result<String>,
    ) -> Result<i64> {
        if let Some(&id) = self.menus.get(&key) {
            return Ok(id);
        }
        let body = build(self, conn)?;
        // A policy of the usual shape is stored dense (schema 7).
        let body = super::dense::policy_body(&body).unwrap_or(body);
        conn.prepare_cached("INSERT INTO menus (body) VALUES (?1)")?
            .execute([&body])?;
        let id = conn.last_insert_rowid();
        if self.menus.len() >= MENU_MEMORY {
            self.menus.clear();
        }
        self.menus.insert(key, id);
        Ok(id)
    }

    /// What `decision_rows.outcome` holds for a decision's `outcome` text
    /// (schema 7): each distinct outcome stored once in `menus`, referred
    /// to by its id's decimal digits as a blob (the column has TEXT
    /// affinity, which would turn an integer into text; the empty blob
    /// stays the views' NULL).
    pub(crate) fn outcome_id(&mut self, conn: &Connection, text: &str) -> Result<Vec<u8>> {
        let id = self.menu_keyed(conn, menu_key(OUTCOME_KIND, text), |_, _| {
            Ok(text.to_string())
        })?;
        Ok(id.to_string().into_bytes())
    }

    /// The menu id of a name list.
    pub(crate) fn list_menu(&mut self, conn: &Connection, names: &[String]) -> Result<i64> {
        let body = self.list_body(conn, names)?;
        self.menu(conn, body)
    }

    /// The menu id of a name list whose key was computed beforehand.
    pub(crate) fn list_menu_keyed(
        &mut self,
        conn: &Connection,
        key: MenuKey,
        names: &[String],
    ) -> Result<i64> {
        self.menu_keyed(conn, key, |p, conn| p.list_body(conn, names))
    }

    /// The menu id of a retrieval: packed when `head` is given (see
    /// [`retrieval_head`]), else its JSON `text` as it is.
    pub(crate) fn retrieval_menu(
        &mut self,
        conn: &Connection,
        r: &Retrieval,
        head: Option<&str>,
        text: &str,
    ) -> Result<i64> {
        let Some(head) = head else {
            return self.menu(conn, text.to_string());
        };
        let body = self.retrieval_body(conn, r, head, shared_head(r.k, head).as_ref())?;
        self.menu(conn, body)
    }

    /// The menu id of a retrieval whose key, and its head's shared part
    /// ([`shared_head`]), were computed beforehand.
    pub(crate) fn retrieval_menu_keyed(
        &mut self,
        conn: &Connection,
        key: MenuKey,
        r: &Retrieval,
        head: Option<&str>,
        shared: Option<&(String, MenuKey)>,
        text: &str,
    ) -> Result<i64> {
        self.menu_keyed(conn, key, |p, conn| match head {
            Some(head) => p.retrieval_body(conn, r, head, shared),
            None => Ok(text.to_string()),
        })
    }

    /// A retrieval packed: `head` then the candidates (schema 5: as
    /// characters, see `pack.rs`; else as id, score pairs).
    /// What a head holds besides `k` (its selector and query) is a `menus`
    /// row of its own, `{"selector":…,"query":…}`, shared by every
    /// retrieval that repeats it (schema 4); the body then says
    /// `{"k":…,"h":<that row's id>,"c":[…]}`.
    /// `shared`: [`shared_head`] of `r.k` and `head`.
    fn retrieval_body(
        &mut self,
        conn: &Connection,
        r: &Retrieval,
        head: &str,
        shared: Option<&(String, MenuKey)>,
    ) -> Result<String> {
        let mut body = String::with_capacity(32);
        let mut head_id = 0;
        if let Some((head_body, key)) = shared {
            head_id = self.menu_keyed(conn, *key, |_, _| Ok(head_body.clone()))?;
            let _ = write!(body, "{{\"k\":{},\"h\":{head_id}", r.k);
        } else {
            body.push_str(head);
        }
        let mut candidates = Vec::with_capacity(r.candidates.len());
        for c in &r.candidates {
            candidates.push((self.intern(conn, &c.name)?, c.score));
        }
        // Dense (schema 7) where it fits, else schema 5's JSON.
        if let Some(dense) = super::dense::retrieval_body(r.k, head_id, &candidates) {
            return Ok(dense);
        }
        Ok(super::pack::retrieval_body(&body, &candidates))
    }
}

/// Converts a database written by schema 2 (menus as JSON text with every
/// name spelled out) to the compact form, in the migration's transaction.
pub(crate) fn pack_existing(conn: &Connection) -> Result<()> {
    let mut packer = Packer::default();
    let mut after = i64::MIN;
    loop {
        let rows: Vec<(i64, [Option<String>; 5])> = {
            let mut s = conn.prepare(
                "SELECT id, policy, trusted_controls, retrieval, exposed, visible FROM decision_rows
                 WHERE id > ?1 ORDER BY id LIMIT 5000",
            )?;
            let text = |r: &rusqlite::Row<'_>, i: usize| -> rusqlite::Result<Option<String>> {
                Ok(match r.get_ref(i)? {
                    rusqlite::types::ValueRef::Text(t) => {
                        Some(String::from_utf8_lossy(t).into_owned())
                    }
                    _ => None,
                })
            };
            s.query_map([after], |r| {
                Ok((
                    r.get(0)?,
                    [
                        text(r, 1)?,
                        text(r, 2)?,
                        text(r, 3)?,
                        text(r, 4)?,
                        text(r, 5)?,
                    ],
                ))
            })?
            .collect::<rusqlite::Result<_>>()?
        };
        let Some(last) = rows.last() else {
            break;
        };
        after = last.0;
        for (id, [policy, controls, retrieval, exposed, visible]) in rows {
            let mut ids: [Option<i64>; 5] = [None; 5];
            if let Some(p) = policy {
                ids[0] = Some(packer.menu(conn, p)?);
            }
            for (slot, v) in [(1, controls), (3, exposed), (4, visible)] {
                if let Some(v) = v {
                    // A value that does not decode stays as it is: reading it
                    // reports it as before.
                    ids[slot] = match serde_json::from_str::<Vec<String>>(&v) {
                        Ok(names) => Some(packer.list_menu(conn, &names)?),
                        Err(_) => None,
                    };
                }
            }
            if let Some(v) = retrieval {
                ids[2] = match serde_json::from_str::<serde_json::Value>(&v)
                    .ok()
                    .and_then(|j| retrieval_from_json(&j))
                {
                    Some(r) => {
                        let head = retrieval_head(&r);
                        Some(packer.retrieval_menu(conn, &r, head.as_deref(), &v)?)
                    }
                    None => None,
                };
            }
            conn.prepare_cached(
                "UPDATE decision_rows SET policy = COALESCE(?2, policy),
                    trusted_controls = COALESCE(?3, trusted_controls),
                    retrieval = COALESCE(?4, retrieval), exposed = COALESCE(?5, exposed),
                    visible = COALESCE(?6, visible)
                 WHERE id = ?1",
            )?
            .execute(params![id, ids[0], ids[1], ids[2], ids[3], ids[4]])?;
        }
    }
    // The classifier's lists: the retrieved menu and the controls.
    let mut after = i64::MIN;
    loop {
        let rows: Vec<(i64, String, String)> = {
            let mut s = conn.prepare(
                "SELECT decision_id, controls, retrieved FROM ladder
                 WHERE decision_id > ?1 ORDER BY decision_id LIMIT 5000",
            )?;
            s.query_map([after], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)))?
                .collect::<rusqlite::Result<_>>()?
        };
        let Some(last) = rows.last() else {
            break;
        };
        after = last.0;
        for (id, controls, retrieved) in rows {
            let pack = |p: &mut Packer, v: String| -> Result<String> {
                match serde_json::from_str::<Vec<String>>(&v) {
                    Ok(names) if !is_packed_list(&v) => p.list_text(conn, &names),
                    _ => Ok(v),
                }
            };
            let controls = pack(&mut packer, controls)?;
            let retrieved = pack(&mut packer, retrieved)?;
            conn.prepare_cached(
                "UPDATE ladder SET controls = ?2, retrieved = ?3 WHERE decision_id = ?1",
            )?
            .execute(params![id, controls, retrieved])?;
        }
    }
    Ok(())
}

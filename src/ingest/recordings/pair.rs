//! Which bodies make one conversation. First each request is paired with
//! its response: as a recordings index lists them, else by file name
//! (`NAME.request.json` / `NAME.response.json`), else by content (a later
//! request whose messages begin with the request's and then the
//! response's turn). Then the exchanges are chained: a request continues
//! the exchange whose response it names (`previous_response_id`), else the
//! one its messages extend the most (its request's messages, then its
//! response's turn, then any more). Requests alone never chain: without a
//! response between them, two transcripts are two runs, as they always
//! were.

use std::cmp::Reverse;
use std::collections::HashMap;
use std::path::PathBuf;

use sha2::{Digest, Sha256};

use super::body::{Api, Body, Fp, Side, name_key};

/// A body found among the sources.
#[derive(Debug, Clone)]
pub struct Pooled {
    /// Its index in the import's sources.
    pub src: usize,
    /// Its path, canonical (to match a recordings index's names).
    pub path: PathBuf,
    pub body: Body,
}

/// One exchange of a conversation, as indices into the pool: its request's
/// messages from `skip` on are new (the ones before are the conversation
/// so far), then its response's turn.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Step {
    pub request: Option<usize>,
    pub response: Option<usize>,
    pub skip: usize,
}

type Digest32 = [u8; 32];

fn seed(api: Api) -> Digest32 {
    Sha256::digest(api.name().as_bytes()).into()
}

fn chain(d: &Digest32, fp: &Fp) -> Digest32 {
    let mut h = Sha256::new();
    h.update(d);
    h.update(fp);
    h.finalize().into()
}

fn digest<'a>(api: Api, fps: impl IntoIterator<Item = &'a Fp>) -> Digest32 {
    fps.into_iter().fold(seed(api), |d, fp| chain(&d, fp))
}

/// Requests paired with responses, both ways.
struct Pairs {
    response_of: Vec<Option<usize>>,
    request_of: Vec<Option<usize>>,
}

impl Pairs {
    fn pair(&mut self, pool: &mut [Pooled], r: usize, s: usize) {
        if r == s || self.response_of[r].is_some() || self.request_of[s].is_some() {
            return;
        }
        let (req, resp) = (&pool[r].body, &pool[s].body);
        if req.side != Side::Request || resp.side != Side::Response {
            return;
        }
        if req.api != resp.api {
            if req.alt.is_some() && resp.api == Api::Anthropic {
                pool[r].body.become_anthropic();
            } else {
                return;
            }
        }
        self.response_of[r] = Some(s);
        self.request_of[s] = Some(r);
    }
}

/// Of several candidates, the one nearest before `at` (else nearest after).
fn nearest(at: usize, order: impl Fn(usize) -> usize) -> impl Fn(&usize) -> (bool, usize) {
    move |&c| {
        let o = order(c);
        if o <= at {
            (false, at - o)
        } else {
            (true, o - at)
        }
    }
}

/// Pairs a response with the request it answered when a later request
/// holds both: its messages begin with the request's, then the turn.
fn pair_by_content(pool: &mut [Pooled], pairs: &mut Pairs) {
    let mut requests: HashMap<Digest32, Vec<usize>> = HashMap::new();
    let mut responses: HashMap<Fp, Vec<usize>> = HashMap::new();
    for (i, p) in pool.iter().enumerate() {
        match p.body.side {
            Side::Request if pairs.response_of[i].is_none() => requests
                .entry(digest(p.body.api, p.body.fps.iter().map(|f| &f.1)))
                .or_default()
                .push(i),
            Side::Response if pairs.request_of[i].is_none() => {
                if let Some((_, fp)) = p.body.fps.first() {
                    responses.entry(*fp).or_default().push(i);
                }
            }
            _ => {}
        }
    }
    for q in 0..pool.len() {
        if pool[q].body.side != Side::Request {
            continue;
        }
        let api = pool[q].body.api;
        let fps: Vec<Fp> = pool[q].body.fps.iter().map(|f| f.1).collect();
        let mut d = seed(api);
        for k in 0..fps.len() {
            if let (Some(ps), Some(ss)) = (requests.get(&d), responses.get(&fps[k])) {
                let ss: Vec<usize> = ss
                    .iter()
                    .copied()
                    .filter(|&s| {
                        let turn = &pool[s].body.fps;
                        pairs.request_of[s].is_none()
                            && pool[s].body.api == api
                            && fps.len() >= k + turn.len()
                            && turn.iter().zip(&fps[k..]).all(|(a, b)| a.1 == *b)
                    })
                    .collect();
                for s in ss {
                    let src = pool[s].src;
                    let p = ps
                        .iter()
                        .copied()
                        .filter(|&p| p != q && pairs.response_of[p].is_none())
                        .min_by_key(nearest(src, |p| pool[p].src));
                    if let Some(p) = p {
                        pairs.pair(pool, p, s);
                    }
                }
            }
            d = chain(&d, &fps[k]);
        }
    }
}

/// One exchange: a request and its response, either of them missing.
struct Exchange {
    request: Option<usize>,
    response: Option<usize>,
    order: usize,
}

/// Groups the pool into conversations, each a list of steps in order;
/// `index` holds the (request, response) pairs recordings indexes name.
/// Conversations come in the order of their first body among the sources.
pub fn conversations(pool: &mut [Pooled], index: &[(usize, usize)]) -> Vec<Vec<Step>> {
    let n = pool.len();
    let mut pairs = Pairs {
        response_of: vec![None; n],
        request_of: vec![None; n],
    };
    for &(r, s) in index {
        pairs.pair(pool, r, s);
    }
    let mut by_name: HashMap<_, (Vec<usize>, Vec<usize>)> = HashMap::new();
    for (i, p) in pool.iter().enumerate() {
        if let Some((dir, before, after, side)) = name_key(&p.path)
            && side == p.body.side
        {
            let e = by_name.entry((dir, before, after)).or_default();
            match side {
                Side::Request => e.0.push(i),
                Side::Response => e.1.push(i),
            }
        }
    }
    let mut named: Vec<(usize, usize)> = by_name
        .into_values()
        .filter(|(r, s)| r.len() == 1 && s.len() == 1)
        .map(|(r, s)| (r[0], s[0]))
        .collect();
    named.sort();
    for (r, s) in named {
        pairs.pair(pool, r, s);
    }
    pair_by_content(pool, &mut pairs);

    let mut ex: Vec<Exchange> = Vec::new();
    for (i, p) in pool.iter().enumerate() {
        match p.body.side {
            Side::Request => {
                let response = pairs.response_of[i];
                let order = response.map_or(p.src, |s| p.src.min(pool[s].src));
                ex.push(Exchange {
                    request: Some(i),
                    response,
                    order,
                });
            }
            Side::Response if pairs.request_of[i].is_none() => ex.push(Exchange {
                request: None,
                response: Some(i),
                order: p.src,
            }),
            Side::Response => {}
        }
    }
    ex.sort_by_key(|e| e.order);

    // Answered exchanges by what a continuing request begins with.
    let mut answered: HashMap<Digest32, Vec<usize>> = HashMap::new();
    let mut by_id: HashMap<(Api, &str), usize> = HashMap::new();
    for (i, e) in ex.iter().enumerate() {
        if let Some(s) = e.response
            && let Some(id) = &pool[s].body.id
        {
            by_id.entry((pool[s].body.api, id.as_str())).or_insert(i);
        }
        if let (Some(r), Some(s)) = (e.request, e.response) {
            let req = &pool[r].body;
            let fps = req.fps.iter().chain(&pool[s].body.fps).map(|f| &f.1);
            answered.entry(digest(req.api, fps)).or_default().push(i);
        }
    }
    let m = ex.len();
    let mut pred: Vec<Option<(usize, usize)>> = vec![None; m];
    let mut succ: Vec<Option<usize>> = vec![None; m];
    let reaches = |pred: &[Option<(usize, usize)>], mut from: usize, to: usize| loop {
        if from == to {
            return true;
        }
        match pred[from] {
            Some((p, _)) => from = p,
            None => return false,
        }
    };
    for j in 0..m {
        let Some(q) = ex[j].request else {
            continue;
        };
        let body = &pool[q].body;
        // (how much of the request the candidate explains, candidate, skip)
        let mut cands: Vec<(usize, usize, usize)> = Vec::new();
        if let Some(prev) = &body.previous
            && let Some(&i) = by_id.get(&(body.api, prev.as_str()))
        {
            cands.push((usize::MAX, i, 0));
        }
        let mut d = seed(body.api);
        for (k, (at, fp)) in body.fps.iter().enumerate() {
            d = chain(&d, fp);
            let found = answered.get(&d).into_iter().flatten();
            cands.extend(found.map(|&i| (k + 1, i, at + 1)));
        }
        let at = ex[j].order;
        cands.sort_by_key(|&(score, i, _)| (Reverse(score), nearest(at, |i| ex[i].order)(&i)));
        for (_, i, skip) in cands {
            if i != j && succ[i].is_none() && !reaches(&pred, i, j) {
                pred[j] = Some((i, skip));
                succ[i] = Some(j);
                break;
            }
        }
    }
    let mut out = Vec::new();
    for root in 0..m {
        if pred[root].is_some() {
            continue;
        }
        let mut steps = Vec::new();
        let mut at = Some(root);
        while let Some(i) = at {
            steps.push(Step {
                request: ex[i].request,
                response: ex[i].response,
                skip: pred[i].map_or(0, |p| p.1),
            });
            at = succ[i];
        }
        out.push(steps);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ingest::recordings::body::classify;
    use serde_json::{Value, json};

    fn pooled(files: &[(&str, Value)]) -> Vec<Pooled> {
        files
            .iter()
            .enumerate()
            .map(|(src, (name, v))| Pooled {
                src,
                path: PathBuf::from("/r").join(name),
                body: classify(v, None).unwrap_or_else(|| panic!("{name} is no body")),
            })
            .collect()
    }

    fn user(t: &str) -> Value {
        json!({"role": "user", "content": t})
    }

    fn calls(id: &str) -> Value {
        json!({"role": "assistant", "tool_calls": [{"id": id, "type": "function", "function": {"name": "find_customer", "arguments": "{}"}}]})
    }

    fn response(id: &str, message: Value) -> Value {
        json!({"object": "chat.completion", "id": id, "choices": [{"message": message}]})
    }

    fn tool(id: &str) -> Value {
        json!({"role": "tool", "tool_call_id": id, "content": "ok"})
    }

    #[test]
    fn content_pairs_and_chains_whatever_the_names() {
        let a = [user("cancel Northwind")];
        let b = [user("cancel Northwind"), calls("c1"), tool("c1")];
        let mut pool = pooled(&[
            ("z.json", json!({"messages": b})),
            ("x.json", json!({"messages": a})),
            ("y.json", response("chatcmpl-1", calls("c1"))),
            (
                "w.json",
                response(
                    "chatcmpl-2",
                    json!({"role": "assistant", "content": "done"}),
                ),
            ),
        ]);
        let convs = conversations(&mut pool, &[]);
        // x+y pair by content (z holds both); z continues them; w stands
        // alone (nothing says which request it answered).
        assert_eq!(
            convs,
            vec![
                vec![
                    Step {
                        request: Some(1),
                        response: Some(2),
                        skip: 0
                    },
                    Step {
                        request: Some(0),
                        response: None,
                        skip: 2
                    },
                ],
                vec![Step {
                    request: None,
                    response: Some(3),
                    skip: 0
                }],
            ]
        );
    }

    #[test]
    fn index_and_names_pair_the_last_answer_too() {
        let a = [user("cancel Northwind")];
        let b = [user("cancel Northwind"), calls("c1"), tool("c1")];
        let files = [
            ("t.1.request.json", json!({"messages": a})),
            ("t.1.response.json", response("chatcmpl-1", calls("c1"))),
            ("t.2.request.json", json!({"messages": b})),
            (
                "t.2.response.json",
                response(
                    "chatcmpl-2",
                    json!({"role": "assistant", "content": "done"}),
                ),
            ),
        ];
        let want = vec![vec![
            Step {
                request: Some(0),
                response: Some(1),
                skip: 0,
            },
            Step {
                request: Some(2),
                response: Some(3),
                skip: 2,
            },
        ]];
        assert_eq!(conversations(&mut pooled(&files), &[]), want);
        let renamed: Vec<(&str, Value)> = ["a", "b", "c", "d"]
            .into_iter()
            .zip(files.iter().map(|f| f.1.clone()))
            .collect();
        assert_eq!(conversations(&mut pooled(&renamed), &[(2, 3)]), want);
    }

    #[test]
    fn requests_alone_never_chain() {
        let a = [user("cancel Northwind")];
        let b = [user("cancel Northwind"), calls("c1"), tool("c1")];
        let mut pool = pooled(&[
            ("a.json", json!({"messages": a})),
            ("b.json", json!({"messages": b})),
        ]);
        assert_eq!(conversations(&mut pool, &[]).len(), 2);
    }

    #[test]
    fn identical_requests_are_retries_not_one_conversation() {
        let a = [user("weather in Las Vegas?")];
        let mut pool = pooled(&[
            ("b.1.request.json", json!({"messages": a})),
            ("b.1.response.json", response("chatcmpl-1", calls("c1"))),
            ("b.2.request.json", json!({"messages": a})),
        ]);
        assert_eq!(conversations(&mut pool, &[]).len(), 2);
    }

    #[test]
    fn responses_chain_by_previous_response_id_and_never_loop() {
        let mut pool = pooled(&[
            (
                "r1.json",
                json!({"object": "response", "id": "resp_1", "output": [{"type": "function_call", "call_id": "c1", "name": "f", "arguments": "{}"}]}),
            ),
            (
                "q2.json",
                json!({"previous_response_id": "resp_2", "input": [{"type": "function_call_output", "call_id": "c1", "output": "x"}]}),
            ),
            (
                "r2.json",
                json!({"object": "response", "id": "resp_2", "output": [{"type": "message", "role": "assistant", "content": [{"type": "output_text", "text": "ok"}]}]}),
            ),
        ]);
        // q2 names resp_2 as its previous response: no exchange may be its
        // own ancestor, so it stays apart.
        let c = conversations(&mut pool, &[(1, 2)]);
        assert_eq!(c.len(), 2);
        pool[1].body.previous = Some("resp_1".into());
        let c = conversations(&mut pool, &[(1, 2)]);
        assert_eq!(
            c,
            vec![vec![
                Step {
                    request: None,
                    response: Some(0),
                    skip: 0
                },
                Step {
                    request: Some(1),
                    response: Some(2),
                    skip: 0
                },
            ]]
        );
    }
}

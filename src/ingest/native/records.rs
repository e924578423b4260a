//! Catalogue, run, decision and case records from their JSON objects.

use serde_json::Value;

use super::*;

pub(super) fn catalogue(mut o: Obj) -> Res<Catalogue> {
    let version = o.req_id("version")?;
    let created_at = o.opt_time("created_at")?;
    let abstain = o.opt_id("abstain")?;
    let tools_v = o.take("tools").ok_or_else(|| o.missing("tools"))?;
    let Value::Array(items) = tools_v else {
        return Err(o.wrong("tools", "a list of tool objects", &tools_v));
    };
    let mut tools: Vec<Tool> = Vec::with_capacity(items.len());
    for (i, item) in items.into_iter().enumerate() {
        let t = tool(item, &format!("tools[{i}]"))?;
        if tools.iter().any(|x| x.name == t.name) {
            return Err(format!(
                "field \"tools[{i}].name\": tool {} is listed twice in this catalogue record",
                crate::text::echo(&t.name)
            ));
        }
        tools.push(t);
    }
    Ok(Catalogue {
        version,
        created_at,
        abstain,
        tools,
        extra: o.extra(),
    })
}

pub(super) fn tool(v: Value, path: &str) -> Res<Tool> {
    let record = v.clone();
    let mut o = Obj::new(v, path)?;
    let name = o.req_id("name")?;
    if name.starts_with('@') {
        return Err(format!(
            "field \"{}\": tool names cannot start with '@' (reserved for @no_call)",
            o.name("name")
        ));
    }
    let family = o.req_str("family")?;
    let effect = o
        .opt_enum("effect", Effect::parse, Effect::spellings)?
        .ok_or_else(|| o.missing("effect"))?;
    let description = o.req_str("description")?;
    let open_world = o.opt_bool("open_world")?.unwrap_or(false);
    let idempotent = o.opt_bool("idempotent")?.unwrap_or(false);
    let input_schema = schema(&mut o, "input_schema")?;
    schema(&mut o, "output_schema")?;
    for key in ["use_when", "avoid_when", "keywords"] {
        o.opt_str_list(key)?;
    }
    for key in ["owner", "provenance", "approval"] {
        o.opt_str(key)?;
    }
    Ok(Tool {
        name,
        family,
        effect,
        description,
        open_world,
        idempotent,
        input_schema,
        record,
    })
}

pub(super) fn schema(o: &mut Obj, key: &str) -> Res<Option<Value>> {
    match o.take(key) {
        None => Ok(None),
        Some(v @ (Value::Object(_) | Value::Bool(_))) => Ok(Some(v)),
        Some(other) => Err(o.wrong(key, "a JSON Schema object", &other)),
    }
}

pub(super) fn policy(o: &mut Obj) -> Res<Option<Policy>> {
    o.opt_obj("policy")?.map(policy_obj).transpose()
}

pub(super) fn policy_obj(mut p: Obj) -> Res<Policy> {
    let allowed_families = p.opt_str_list("allowed_families")?;
    let max_effect = p.opt_enum("max_effect", Effect::parse, Effect::spellings)?;
    let allow_open_world = p.opt_bool("allow_open_world")?.unwrap_or(false);
    Ok(Policy {
        allowed_families,
        max_effect,
        allow_open_world,
        extra: p.extra(),
    })
}

pub(super) fn retrieval(o: &mut Obj) -> Res<Option<Retrieval>> {
    o.opt_obj("retrieval")?.map(retrieval_obj).transpose()
}

/// A candidate taken directly when it is well formed (they are many);
/// otherwise the value back, for the general path.
pub(super) fn well_formed_candidate(item: Value) -> Result<Candidate, Value> {
    let Value::Object(mut m) = item else {
        return Err(item);
    };
    let name_ok = matches!(m.get("name"), Some(Value::String(_)));
    let score_ok = matches!(m.get("score"), None | Some(Value::Null | Value::Number(_)));
    if !(name_ok && score_ok) {
        return Err(Value::Object(m));
    }
    let Some(Value::String(name)) = m.remove("name") else {
        return Err(Value::Object(m));
    };
    let score = match m.remove("score") {
        Some(Value::Number(n)) => n.as_f64(),
        _ => None,
    };
    Ok(Candidate {
        name,
        score,
        extra: Value::Object(m),
    })
}

pub(super) fn retrieval_obj(mut r: Obj) -> Res<Retrieval> {
    let k = r.opt_int("k", 0)?.ok_or_else(|| {
        format!(
            "missing required field \"{}\" (how many candidates the retriever kept)",
            r.name("k")
        )
    })?;
    let selector = r.opt_str("selector")?;
    let query = r.opt_str("query")?;
    let mut candidates = Vec::new();
    if let Some(v) = r.take("candidates") {
        let Value::Array(items) = v else {
            return Err(r.wrong("candidates", "a list of {name, score} objects", &v));
        };
        candidates.reserve(items.len());
        for (i, item) in items.into_iter().enumerate() {
            match well_formed_candidate(item) {
                Ok(c) => candidates.push(c),
                Err(item) => {
                    // The general path, for its precise error message.
                    let mut c = Obj::new(item, &format!("{}[{i}]", r.name("candidates")))?;
                    candidates.push(Candidate {
                        name: c.req_str("name")?,
                        score: c.opt_number("score")?,
                        extra: c.extra(),
                    });
                }
            }
        }
    }
    Ok(Retrieval {
        k: u32::try_from(k).unwrap_or(u32::MAX),
        selector,
        query,
        candidates,
        extra: r.extra(),
    })
}

pub(super) fn menu(o: &mut Obj) -> Res<MenuFields> {
    Ok(MenuFields {
        catalogue: o.opt_id("catalogue")?,
        policy: policy(o)?,
        trusted_controls: o.opt_str_list("trusted_controls")?,
        retrieval: retrieval(o)?,
        visible: o.opt_str_list("visible")?,
    })
}

pub(super) fn run(mut o: Obj) -> Res<Run> {
    let run_id = o.req_id("run_id")?;
    let task_id = o.opt_id("task_id")?;
    let trial = o.opt_int("trial", 0)?;
    let goal = o.opt_str("goal")?;
    let intent = o.opt_enum("intent", Intent::parse, Intent::spellings)?;
    let model = o.opt_str("model")?;
    let selector = o.opt_str("selector")?;
    let menu = menu(&mut o)?;
    let started_at = o.opt_time("started_at")?;
    let ended_at = o.opt_time("ended_at")?;
    let terminated = o.opt_enum("terminated", Terminated::parse, Terminated::spellings)?;
    let success = o.opt_bool("success")?;
    let harm = o.opt_bool("harm")?;
    let scope = o.opt_str("scope")?;
    let mut tags = Vec::new();
    if let Some(mut t) = o.opt_obj("tags")? {
        for (k, v) in std::mem::take(&mut t.map) {
            match v {
                Value::String(s) => tags.push((k, s)),
                other => {
                    return Err(format!(
                        "field \"tags.{}\" must be a string (tags are a string map), not {} ({})",
                        key_shown(&k),
                        type_name(&other),
                        shown(&other)
                    ));
                }
            }
        }
    }
    Ok(Run {
        run_id,
        task_id,
        trial,
        goal,
        intent,
        model,
        selector,
        menu,
        started_at,
        ended_at,
        terminated,
        success,
        harm,
        scope,
        tags,
        extra: o.extra(),
    })
}

pub(super) fn label(o: &mut Obj, what: &str) -> Res<Label> {
    let acceptable = o
        .opt_str_list("acceptable")?
        .ok_or_else(|| o.missing("acceptable"))?;
    if acceptable.is_empty() {
        return Err(format!(
            "field \"{}\" is empty; {what} needs at least one acceptable name (@no_call for \"no tool call\")",
            o.name("acceptable")
        ));
    }
    let forbidden = o.opt_str_list("forbidden")?.unwrap_or_default();
    if let Some(both) = acceptable.iter().find(|a| forbidden.contains(a)) {
        return Err(format!(
            "\"acceptable\" and \"forbidden\" both contain {}; a name cannot be both",
            crate::text::echo(both)
        ));
    }
    Ok(Label::new(acceptable, forbidden))
}

pub(super) fn decision(mut o: Obj) -> Res<Decision> {
    let run_id = o.req_id("run_id")?;
    let step = o.opt_int("step", 1)?.ok_or_else(|| o.missing("step"))?;
    let turn = o.opt_int("turn", 0)?;
    let at = o.opt_time("at")?;
    let phase = o.opt_str("phase")?;
    let menu = menu(&mut o)?;
    let exposed = o.opt_str_list("exposed")?;
    let selected = match o.map.remove("selected") {
        None => {
            return Err(
                "missing required field \"selected\" (use null when no tool was called)"
                    .to_string(),
            );
        }
        Some(Value::Null) => None,
        Some(Value::String(s)) if s.starts_with('@') => {
            return Err(format!(
                "field \"selected\": {} is not a tool name; use null when no tool was called",
                crate::text::echo(&s)
            ));
        }
        Some(Value::String(s)) => Some(s),
        Some(other) => return Err(o.wrong("selected", "a tool name or null", &other)),
    };
    let call_id = o.opt_str("call_id")?;
    let arguments = o.opt_any("arguments");
    let raw = o.opt_any("raw");
    let outcome = match o.opt_obj("outcome")? {
        None => None,
        Some(mut oc) => {
            let status = oc
                .opt_enum("status", Status::parse, Status::spellings)?
                .ok_or_else(|| oc.missing("status"))?;
            Some(Outcome {
                status,
                stage: oc.opt_enum("stage", Stage::parse, Stage::spellings)?,
                reason: oc.opt_str("reason")?,
                message: oc.opt_str("message")?,
                retryable: oc.opt_bool("retryable")?,
                extra: oc.extra(),
            })
        }
    };
    let latency_ms = o.opt_number("latency_ms")?;
    let result = o.opt_any("result");
    let progress = o.opt_enum("progress", Progress::parse, Progress::spellings)?;
    let text = kept_in_extra(&mut o, &["text"], |o| o.opt_str("text"))?;
    let expected = match o.map.remove("expected") {
        None => None,
        Some(Value::Null) => {
            return Err(
                "field \"expected\" is null; leave it out for an unlabelled decision".to_string(),
            );
        }
        Some(v) => {
            let mut e = Obj::new(v, "expected")?;
            if e.map.is_empty() {
                return Err(
                    "field \"expected\" is empty; give it an \"acceptable\" list or leave it out"
                        .to_string(),
                );
            }
            Some(label(&mut e, "an inline label")?)
        }
    };
    Ok(Decision {
        run_id,
        step,
        turn,
        at,
        phase,
        menu,
        exposed,
        selected,
        call_id,
        arguments,
        raw,
        outcome,
        latency_ms,
        result,
        progress,
        expected,
        text,
        extra: o.extra(),
    })
}

pub(super) fn case(mut o: Obj) -> Res<Case> {
    let task_id = o.req_id("task_id")?;
    let step = o.opt_int("step", 1)?;
    let catalogue = o.opt_id("catalogue")?;
    let expectations = kept_in_extra(&mut o, &EXPECTATION_FIELDS, expectation_fields)?;
    if step.is_some() {
        for (key, set) in [
            ("expected_calls", expectations.calls.is_some()),
            ("expected_outputs", expectations.outputs.is_some()),
        ] {
            if set {
                return Err(format!(
                    "field \"{key}\": expectations belong to the run as a whole, so a case with {key} has no \"step\" (leave \"step\" out, or put the label for that step in a case of its own)"
                ));
            }
        }
    }
    let label = if o.map.get("acceptable").is_some_and(|v| !v.is_null()) {
        Some(label(&mut o, "a case")?)
    } else if o.map.get("forbidden").is_some_and(|v| !v.is_null()) {
        return Err(
            "field \"forbidden\" needs an \"acceptable\" list beside it (what was right instead)"
                .to_string(),
        );
    } else {
        None
    };
    if label.is_none() && !expectations.is_set() {
        return Err(
            "a case needs \"acceptable\", \"expected_calls\" or \"expected_outputs\" (at least one)"
                .to_string(),
        );
    }
    let note = o.opt_str("note")?;
    Ok(Case {
        task_id,
        step,
        catalogue,
        label,
        expectations,
        note,
        extra: o.extra(),
    })
}

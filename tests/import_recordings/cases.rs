use super::*;

#[test]
fn chat_bodies_paired_by_file_name_make_one_run() {
    let (_d, db) = setup();
    let dir = rec("chat");
    let err = import(&db, &["--format", "openai", dir.to_str().unwrap()]);
    assert_eq!(
        notes(&err),
        vec!["note: read 6 recorded request and response bodies as 1 conversation, one run each"]
    );
    assert_eq!(run_ids(&db), vec!["chatcmpl-bd01"]);
    assert_eq!(
        rows(&db, "chatcmpl-bd01"),
        vec![
            row(1, Some(FIND), Some("call_nw1"), Some("ok")),
            row(1, Some(FIND), Some("call_qc1"), Some("ok")),
            row(2, Some(CANCEL), Some("call_nw2"), Some("ok")),
            row(2, Some(CANCEL), Some("call_qc2"), Some("ok")),
            row(3, None, None, None),
        ]
    );
    let d = stored(&db, "chatcmpl-bd01");
    // Each decision names the response it came from; the result the next
    // request sent is its outcome's.
    let at = |n: usize| {
        format!(
            "{}:7",
            dir.join(format!("brightdesk-cancel.{n}.response.json"))
                .display()
        )
    };
    assert_eq!(
        d.iter().map(|d| d.source.clone()).collect::<Vec<_>>(),
        vec![at(1), at(1), at(2), at(2), at(3)]
    );
    assert_eq!(
        d[0].arguments,
        Some(json!({"name_or_email": "Northwind Dental"}))
    );
    assert_eq!(
        d[1].result,
        Some(
            json!({"customer_id": "cus_8Qc2", "name": "Quarry Climbing", "subscriptions": [{"subscription_id": "sub_qc_01", "plan": "one location", "monthly": 18000}]})
        )
    );
    assert_eq!(
        d[3].result,
        Some(json!({"ok": true, "cancel_at": "2026-09-30", "refund_issued": false}))
    );
    assert_eq!(
        d[4].extra.as_ref().unwrap()["text"],
        "Both subscriptions end on 2026-09-30; no refund was issued."
    );
    // The last request offered only cancel_subscription: each decision
    // keeps the menu of its own request.
    let all = json!([FIND, "list_subscriptions", CANCEL]);
    assert_eq!(
        d.iter()
            .map(|d| d.visible.clone().unwrap())
            .collect::<Vec<_>>(),
        vec![all.clone(), all.clone(), all.clone(), all, json!([CANCEL])]
    );
    let runs = report(&db, "runs");
    assert_eq!(runs["runs"][0]["model"], "gpt-4.1-mini-2025-04-14");
    assert_eq!(
        goal(&db, "chatcmpl-bd01").as_deref(),
        Some("Cancel both Northwind Dental and Quarry Climbing at the end of the period.")
    );
    let extra = run_extra(&db, "chatcmpl-bd01");
    let ex = extra["interactions"].as_array().unwrap();
    assert_eq!(ex.len(), 3);
    assert_eq!(
        ex[0]["request"],
        json!({"model": "gpt-4.1-mini", "temperature": 0, "tool_choice": "auto"})
    );
    assert_eq!(ex[2]["response"]["id"], "chatcmpl-bd03");
    assert_eq!(ex[2]["response"]["usage"]["total_tokens"], 558);
    assert_eq!(ex[2]["response"]["choice"]["finish_reason"], "stop");
    assert_eq!(extra["tool_definitions"].as_array().unwrap().len(), 3);

    // The same files named one by one, auto-detected: the same run, and
    // importing them again changes nothing.
    let (_d2, db2) = setup();
    let names = files(&dir);
    let args: Vec<&str> = names.iter().map(String::as_str).collect();
    import(&db2, &args);
    assert_eq!(rows(&db2, "chatcmpl-bd01"), rows(&db, "chatcmpl-bd01"));
    // A file named twice is read once.
    let (_d3, db3) = setup();
    let mut twice = args.clone();
    twice.push(args[1]);
    let err = import(&db3, &twice);
    assert!(
        err.contains("imported 0 catalogues, 1 run, 5 decisions, 0 cases from 7 files"),
        "{err}"
    );
    let again = import(&db, &args);
    assert!(
        again.contains("imported 0 catalogues, 0 runs, 0 decisions, 0 cases from 6 files"),
        "{again}"
    );
}

#[test]
fn anthropic_bodies_paired_by_their_index() {
    let (_d, db) = setup();
    let dir = rec("anthropic");
    let err = import(&db, &["--format", "anthropic", dir.to_str().unwrap()]);
    assert_eq!(
        notes(&err),
        vec![
            format!(
                "note: {}: a recordings index (the request and response files of each recording), not a trace: it pairs those files and is not imported",
                dir.join("cassettes.json").display()
            )
            .as_str(),
            "note: read 6 recorded request and response bodies as 1 conversation, one run each"
        ]
    );
    assert_eq!(run_ids(&db), vec!["msg_bd_a"]);
    assert_eq!(
        rows(&db, "msg_bd_a"),
        vec![
            row(1, Some(FIND), Some("toolu_nw_find"), Some("ok")),
            row(
                2,
                Some("refund_invoice"),
                Some("toolu_nw_refund"),
                Some("error")
            ),
            row(3, None, None, None),
        ]
    );
    let d = stored(&db, "msg_bd_a");
    assert_eq!(
        d[1].outcome,
        Some(
            json!({"status": "error", "stage": "execution", "message": "subscription_still_active: Cancel with when='now' first."})
        )
    );
    assert_eq!(
        d[0].extra.as_ref().unwrap()["text"],
        "I'll look up Northwind Dental first."
    );
    assert_eq!(
        d[2].source,
        format!("{}:1", dir.join("reply-c.json").display())
    );

    // Without the index, content pairs the first two answers (a later
    // request holds each); nothing says which request the last answered,
    // so it is a run of its own.
    let tmp = tempfile::tempdir().unwrap();
    for f in files(&dir) {
        let p = Path::new(&f);
        if p.file_name().unwrap() != "cassettes.json" {
            std::fs::copy(p, tmp.path().join(p.file_name().unwrap())).unwrap();
        }
    }
    let (_d2, db2) = setup();
    let err = import(
        &db2,
        &["--format", "anthropic", tmp.path().to_str().unwrap()],
    );
    assert_eq!(
        notes(&err),
        vec!["note: read 5 recorded request and response bodies as 1 conversation, one run each"]
    );
    assert_eq!(run_ids(&db2), vec!["msg_bd_a", "msg_bd_c"]);
    assert_eq!(
        rows(&db2, "msg_bd_a"),
        vec![
            row(1, Some(FIND), Some("toolu_nw_find"), Some("ok")),
            row(
                2,
                Some("refund_invoice"),
                Some("toolu_nw_refund"),
                Some("error")
            ),
        ]
    );
    assert_eq!(rows(&db2, "msg_bd_c"), vec![row(1, None, None, None)]);
}

#[test]
fn responses_chained_by_previous_response_id_or_sent_in_full() {
    let (_d, db) = setup();
    let dir = rec("responses");
    import(
        &db,
        &["--format", "openai-responses", dir.to_str().unwrap()],
    );
    assert_eq!(run_ids(&db), vec!["resp_hy_1", "resp_qc_1"]);
    // Each request holds only the outputs for the previous response's
    // calls (previous_response_id).
    assert_eq!(
        rows(&db, "resp_qc_1"),
        vec![
            row(1, Some(FIND), Some("call_qc_find"), Some("ok")),
            row(
                2,
                Some("refund_invoice"),
                Some("call_qc_refund"),
                Some("ok")
            ),
            row(3, None, None, None),
        ]
    );
    let d = stored(&db, "resp_qc_1");
    assert_eq!(
        d[1].result,
        Some(json!({"ok": true, "refund_id": "re_5521", "amount": 18000}))
    );
    assert_eq!(
        goal(&db, "resp_qc_1").as_deref(),
        Some("Refund Quarry Climbing's duplicate charge from September.")
    );
    assert_eq!(run_extra(&db, "resp_qc_1").get("previous_outputs"), None);
    // Each request resends the whole conversation (its function_call
    // spaced differently than the response wrote it).
    assert_eq!(
        rows(&db, "resp_hy_1"),
        vec![
            row(1, Some(FIND), Some("call_hy_find"), Some("ok")),
            row(2, None, None, None),
        ]
    );
}

#[test]
fn gemini_bodies_paired_by_content_alone() {
    let (_d, db) = setup();
    let dir = rec("gemini");
    let names = files(&dir);
    let args: Vec<&str> = names.iter().map(String::as_str).collect();
    import(&db, &args);
    // a.json and b.json are one exchange because c.json holds both; d.json
    // answered c.json, but no later request or name says so.
    assert_eq!(run_ids(&db), vec!["gemini-gm-pp-1", "gemini-gm-pp-2"]);
    assert_eq!(
        rows(&db, "gemini-gm-pp-1"),
        vec![row(1, Some(FIND), None, Some("ok"))]
    );
    let d = stored(&db, "gemini-gm-pp-1");
    assert_eq!(
        d[0].result,
        Some(json!({"customers": [], "note": "No customer matched. Check the spelling."}))
    );
    assert_eq!(d[0].visible, Some(json!([FIND, "list_subscriptions"])));
    assert_eq!(rows(&db, "gemini-gm-pp-2"), vec![row(1, None, None, None)]);
}

#[test]
fn every_fixture_folder_at_once() {
    let (_d, db) = setup();
    let mut names = Vec::new();
    for api in ["anthropic", "chat", "gemini", "responses"] {
        names.extend(files(&rec(api)));
    }
    let args: Vec<&str> = names.iter().map(String::as_str).collect();
    let err = import(&db, &args);
    assert!(
        err.contains("imported 0 catalogues, 6 runs, 15 decisions, 0 cases from 27 files"),
        "{err}"
    );
    assert_eq!(
        run_ids(&db),
        vec![
            "chatcmpl-bd01",
            "gemini-gm-pp-1",
            "gemini-gm-pp-2",
            "msg_bd_a",
            "resp_hy_1",
            "resp_qc_1"
        ]
    );
    assert!(err.contains(
        "note: read 25 recorded request and response bodies as 5 conversations, one run each"
    ));
}

#[test]
fn each_body_alone_still_imports() {
    // A response alone: its calls, with no outcome yet.
    let (_d, db) = setup();
    import(
        &db,
        &[rec("chat/brightdesk-cancel.2.response.json")
            .to_str()
            .unwrap()],
    );
    assert_eq!(
        rows(&db, "chatcmpl-bd02"),
        vec![
            row(1, Some(CANCEL), Some("call_nw2"), None),
            row(1, Some(CANCEL), Some("call_qc2"), None),
        ]
    );
    let d = stored(&db, "chatcmpl-bd02");
    assert_eq!(
        d[0].extra.as_ref().unwrap()["message"]["finish_reason"],
        "tool_calls"
    );
    assert_eq!(
        run_extra(&db, "chatcmpl-bd02")["response"]["usage"],
        json!({"prompt_tokens": 455, "completion_tokens": 61, "total_tokens": 516})
    );
    assert_eq!(
        report(&db, "runs")["runs"][0]["model"],
        "gpt-4.1-mini-2025-04-14"
    );

    let (_d, db) = setup();
    import(&db, &[rec("anthropic/reply-b.json").to_str().unwrap()]);
    assert_eq!(
        rows(&db, "msg_bd_b"),
        vec![row(
            1,
            Some("refund_invoice"),
            Some("toolu_nw_refund"),
            None
        )]
    );
    assert_eq!(
        run_extra(&db, "msg_bd_b")["response"]["stop_reason"],
        "tool_use"
    );

    // A request alone: its history, as before.
    let (_d, db) = setup();
    import(
        &db,
        &[rec("chat/brightdesk-cancel.2.request.json")
            .to_str()
            .unwrap()],
    );
    let ids = run_ids(&db);
    assert_eq!(
        rows(&db, &ids[0]),
        vec![
            row(1, Some(FIND), Some("call_nw1"), Some("ok")),
            row(1, Some(FIND), Some("call_qc1"), Some("ok")),
        ]
    );

    // A request that continues a stored response: nothing to decide, the
    // outputs kept with the response they answer.
    let (_d, db) = setup();
    import(
        &db,
        &[rec("responses/quarry.2.request.json").to_str().unwrap()],
    );
    let ids = run_ids(&db);
    assert_eq!(rows(&db, &ids[0]), vec![]);
    let extra = run_extra(&db, &ids[0]);
    assert_eq!(extra["previous_response_id"], "resp_qc_1");
    assert_eq!(
        extra["previous_outputs"],
        json!([{"type": "function_call_output", "call_id": "call_qc_find", "output": "{\"customer_id\": \"cus_8Qc2\", \"invoices\": [{\"invoice_id\": \"in_8101\", \"amount\": 18000}, {\"invoice_id\": \"in_8102\", \"amount\": 18000}]}"}])
    );

    // An index alone is no trace: a note, nothing imported.
    let (_d, db) = setup();
    let idx = rec("anthropic/cassettes.json");
    let r = rung(&db, &["import", idx.to_str().unwrap()]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert_eq!(
        r.stderr,
        format!(
            "imported 0 catalogues, 0 runs, 0 decisions, 0 cases from 1 file\nclassified 0 runs\nnote: {}: a recordings index (the request and response files of each recording), not a trace: it pairs those files and is not imported\n",
            idx.display()
        )
    );

    // Its name is said on one line, however it is spelt.
    let (d, db) = setup();
    let odd = d.path().join("x\nimported 9 runs\n\u{1b}[2J.json");
    std::fs::copy(&idx, &odd).unwrap();
    let r = rung(&db, &["import", odd.to_str().unwrap()]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert_eq!(
        r.stderr,
        format!(
            "imported 0 catalogues, 0 runs, 0 decisions, 0 cases from 1 file\nclassified 0 runs\nnote: {}/x\\nimported 9 runs\\n\\x1b[2J.json: a recordings index (the request and response files of each recording), not a trace: it pairs those files and is not imported\n",
            d.path().display()
        )
    );
}

#[test]
fn bodies_are_read_within_max_line() {
    // Each body is parsed whole, so --max-line bounds what it may take,
    // paired or not: at 8 KB the second request (1,846 bytes, more once
    // parsed) is not paired but read on its own, which refuses it. The
    // first exchange alone pairs and is read before it.
    let (_d, db) = setup();
    let dir = rec("chat");
    let r = rung(
        &db,
        &[
            "import",
            "--max-line",
            "8KB",
            "--format",
            "openai",
            dir.to_str().unwrap(),
        ],
    );
    assert_eq!(r.code, 2, "{}", r.stderr);
    assert_eq!(
        r.stderr.trim_end(),
        format!(
            "{}:1: the JSON would take more than 8 KB of memory once parsed (by column 1160; --max-line bounds it): too many values in one record; split it, or raise --max-line",
            dir.join("brightdesk-cancel.2.request.json").display()
        )
    );
    assert!(!db.exists(), "a failed first import left a database");
    // With the default limit the same folder is one conversation.
    let err = import(&db, &["--format", "openai", dir.to_str().unwrap()]);
    assert!(err.contains("as 1 conversation"), "{err}");
}

#[test]
fn a_part_that_cannot_be_mapped_names_its_own_file() {
    let tmp = tempfile::tempdir().unwrap();
    std::fs::copy(
        rec("chat/brightdesk-cancel.1.request.json"),
        tmp.path().join("t.1.request.json"),
    )
    .unwrap();
    let resp = tmp.path().join("t.1.response.json");
    std::fs::write(
        &resp,
        "{\n  \"id\": \"chatcmpl-cut\",\n  \"object\": \"chat.completion\",\n  \"choices\": [\n    {\"message\": {\"role\": \"assistant\", \"tool_calls\": [\n      {\"id\": \"call_1\", \"type\": \"function\", \"function\": {\"name\": \"find_customer\", \"arguments\": \"{\\\"name_or_email\\\": \"}}\n    ]}}\n  ]\n}\n",
    )
    .unwrap();
    let (_d, db) = setup();
    let r = rung(
        &db,
        &["import", "--format", "openai", tmp.path().to_str().unwrap()],
    );
    assert_eq!(r.code, 2, "{}", r.stderr);
    assert_eq!(
        r.stderr.trim_end(),
        format!(
            "{}:5: run chatcmpl-cut: dropped the arguments of call \"call_1\" to \"find_customer\": not JSON (EOF while parsing a value at line 1 column 18); kept as text in \"arguments_text\" (--keep-going imports the rest and lists each part it dropped)",
            resp.display()
        )
    );
    assert!(!db.exists(), "a failed first import left a database");
    let k = rung(
        &db,
        &[
            "import",
            "--keep-going",
            "--format",
            "openai",
            tmp.path().to_str().unwrap(),
        ],
    );
    assert_eq!(k.code, 0, "{}", k.stderr);
    assert!(
        k.stderr
            .contains(&format!("dropped: {}:5: run chatcmpl-cut:", resp.display()))
    );
    assert_eq!(
        rows(&db, "chatcmpl-cut"),
        vec![row(1, Some(FIND), Some("call_1"), None)]
    );
}

#[test]
#[ignore = "needs ../shared"]
fn shared_recordings_each_file_alone() {
    let table = by_file();
    // The table covers every JSON body of the folder.
    let dir = shared_trace(REC);
    let mut on_disk: Vec<String> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().into_string().unwrap())
        .filter(|n| n.ends_with(".json") && n != "index.json")
        .collect();
    on_disk.sort();
    let listed: Vec<&str> = table.iter().map(|(f, _)| *f).collect();
    assert_eq!(on_disk, listed);
    for (file, want) in table {
        let (_d, db) = setup();
        import(&db, &["--format", "auto", &shared(file)]);
        let ids = run_ids(&db);
        assert_eq!(ids.len(), 1, "{file}: {ids:?}");
        assert_eq!(rows(&db, &ids[0]), want, "{file}");
    }
    // The streamed response of beeai's second exchange was recorded empty:
    // it imports, holding nothing.
    let (_d, db) = setup();
    let err = import(
        &db,
        &[
            "--format",
            "auto",
            &shared("beeai-llm-with-tools.openai-chat.2.response.txt"),
        ],
    );
    assert!(
        err.starts_with("imported 0 catalogues, 0 runs, 0 decisions, 0 cases from 1 file\n"),
        "{err}"
    );
    // The index is no trace: skipped with a note.
    let (_d, db) = setup();
    let err = import(&db, &["--format", "auto", &shared("index.json")]);
    assert!(err.contains(&format!(
        "note: {}: a recordings index (the request and response files of each recording), not a trace: it pairs those files and is not imported",
        shared("index.json")
    )));
    assert_eq!(run_ids(&db), Vec::<String>::new());
}

#[test]
#[ignore = "needs ../shared"]
fn shared_recordings_as_a_folder() {
    let names = folder_files(false);
    assert_eq!(names.len(), 29);
    let args: Vec<&str> = names.iter().map(String::as_str).collect();
    let (_d, db) = setup();
    let err = import(&db, &args);
    assert!(
        err.contains("imported 0 catalogues, 10 runs, 20 decisions, 0 cases from 29 files"),
        "{err}"
    );
    assert!(err.contains(
        "note: read 26 recorded request and response bodies as 9 conversations, one run each"
    ));
    assert_conversations(&db);
    // Results come from the next request, in the file that sent them.
    let d = stored(
        &db,
        "resp_0401f348de3b68550069d6f97bea1081a2b6482c17b3205c9a",
    );
    assert_eq!(
        (d[0].result.clone(), d[1].result.clone()),
        (Some(json!("72°F")), Some(json!("65%")))
    );
    assert_eq!(
        d[0].source,
        format!(
            "{}:19",
            shared("agent-framework-multiple-tools.openai-responses.1.response.json")
        )
    );
    let d = stored(&db, "gemini-znShafjoAvD41e8P2bm7YA");
    assert_eq!(d[1].arguments, Some(json!({"city": "London"})));
    assert_eq!(
        d[1].source,
        format!(
            "{}:3",
            shared("google-adk-multi-tool.gemini.2.response.json")
        )
    );
    let d = stored(&db, "chatcmpl-DFqnW33WNGeP23OIyWAVD8bOVGy72");
    assert_eq!(
        d[0].result,
        Some(json!(
            "\"The world as we have created it is a process of our thinking. It cannot be changed without changing our thinking.\" by Albert Einstein"
        ))
    );

    // The assembled transcripts hold nothing the bodies do not: the same
    // runs, record for record.
    let with = folder_files(true);
    assert_eq!(with.len(), 35);
    let args: Vec<&str> = with.iter().map(String::as_str).collect();
    let again = import(&db, &args);
    assert!(
        again.contains("imported 0 catalogues, 0 runs, 0 decisions, 0 cases from 35 files"),
        "{again}"
    );
    let (_d2, db2) = setup();
    import(&db2, &args);
    assert_conversations(&db2);
}

#[test]
#[ignore = "needs ../shared"]
fn shared_recordings_folder_with_a_named_format() {
    // --format openai reads every .json of the folder (assembled/ too):
    // the chat conversations pair; the other APIs' bodies are not OpenAI
    // chat and are skipped with --keep-going.
    let (_d, db) = setup();
    let dir = shared_trace(REC);
    let r = rung(
        &db,
        &[
            "import",
            "--keep-going",
            "--format",
            "openai",
            dir.to_str().unwrap(),
        ],
    );
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert!(r.stderr.contains("skipped 16 bad records"), "{}", r.stderr);
    assert!(r.stderr.contains(
        "note: read 16 recorded request and response bodies as 5 conversations, one run each"
    ));
    let want: Vec<(&str, Vec<Row>)> = conversations()
        .into_iter()
        .filter(|(id, _)| id.starts_with("chatcmpl-"))
        .collect();
    let ids = run_ids(&db);
    assert_eq!(ids.len(), want.len() + 1, "{ids:?}");
    for (run, rows_want) in want {
        assert_eq!(rows(&db, run), rows_want, "{run}");
    }
}

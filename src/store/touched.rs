//! The set-based refresh of the sessions a batch touched: their link graph,
//! session rows, search documents and dirty marks.

use std::collections::{BTreeMap, BTreeSet, HashMap};

use rusqlite::params;

use super::sessions::{
    ArtifactSummary, DocumentParts, SESSION_COLUMNS, assemble_session, session_row,
};
use super::*;

/// A session row and whether projections show it (`None`: not judged yet).
type JudgedRow = (SessionRow, Option<bool>);

impl Batch<'_> {
    /// Loads the sessions a batch touched into a temp table, for the set-based
    /// statements below (one query per batch, not one per session).
    pub fn set_touched(&self, tokens: &BTreeSet<String>) -> Result<()> {
        self.tx
            .execute_batch(
                "CREATE TEMP TABLE IF NOT EXISTS touched(token TEXT PRIMARY KEY) WITHOUT ROWID; DELETE FROM temp.touched;",
            )
            .map_err(|e| self.err(e))?;
        let mut insert = self
            .tx
            .prepare_cached("INSERT INTO temp.touched(token) VALUES (?1)")
            .map_err(|e| self.err(e))?;
        for token in tokens {
            insert.execute([token]).map_err(|e| self.err(e))?;
        }
        Ok(())
    }

    /// The touched sessions' rows as link-graph nodes by token, and the artifact files present for them.
    pub fn touched_graph(&self) -> Result<TouchedGraph> {
        let sql = "SELECT token, source_path, source_kind, manifest_path, summary_path, transcript_path, compaction_path, continues
                   FROM artifacts WHERE token IN (SELECT token FROM temp.touched) ORDER BY token, source_path";
        let rows: Vec<GraphNode> = query(&self.tx, sql, [], |r| {
            let kind: String = r.get(2)?;
            Ok(GraphNode {
                token: r.get(0)?,
                source_path: r.get(1)?,
                kind: ArtifactKind::parse(&kind).unwrap_or(ArtifactKind::Summary),
                manifest_path: r.get(3)?,
                summary_path: r.get(4)?,
                transcript_path: r.get(5)?,
                compaction_path: r.get(6)?,
                continues: r.get(7)?,
            })
        })
        .map_err(|e| self.err(e))?;
        let mut nodes: BTreeMap<String, Vec<GraphNode>> = BTreeMap::new();
        for node in rows {
            nodes.entry(node.token.clone()).or_default().push(node);
        }
        let sql = "SELECT path FROM files WHERE class = 'artifact' AND token IN (SELECT token FROM temp.touched)";
        let present = query(&self.tx, sql, [], |r| r.get(0)).map_err(|e| self.err(e))?;
        Ok((nodes, present))
    }
    /// Replaces the link-graph problems of every touched session.
    pub fn replace_touched_graph_problems(&self, problems: &[(String, Problem)]) -> Result<()> {
        self.tx
            .execute("DELETE FROM problems WHERE phase = 'graph' AND token IN (SELECT token FROM temp.touched)", [])
            .map_err(|e| self.err(e))?;
        for (token, p) in problems {
            self.insert_problems(Phase::Graph, Some(token), std::slice::from_ref(p))?;
        }
        Ok(())
    }

    /// Re-derives the `sessions` rows of every touched session from its artifact
    /// rows, marking the days and agents of the old and new rows dirty.
    /// `load` reads the body of an artifact that is neither in this batch nor
    /// in the session's old search document (the earlier parts of a session
    /// that gained a continuation).
    pub fn refresh_touched_sessions(
        &self,
        floor: &SentenceConfig,
        load: &dyn Fn(&str) -> Option<String>,
        shows: &dyn Fn(&SessionRow) -> bool,
    ) -> Result<()> {
        let mut old_rows = self.touched_rows()?;
        let old_bodies = self.touched_bodies()?;
        self.exec(
            "DELETE FROM session_fts WHERE rowid IN
             (SELECT fts_id FROM sessions WHERE token IN (SELECT token FROM temp.touched))",
            [],
        )?;
        const TOUCHED_SHOWN: &str = "token IN (SELECT token FROM temp.touched) AND shown = 1";
        self.count_days(TOUCHED_SHOWN, -1)?;
        self.tx
            .execute(
                "DELETE FROM sessions WHERE token IN (SELECT token FROM temp.touched)",
                [],
            )
            .map_err(|e| self.err(e))?;
        let sql = "SELECT token, agent_id, source_kind, source_path, session_id, session_key, project, harness,
                   captured_at, membership_ts, memory_sentence, private, noise, untrusted, properties FROM artifacts
                   WHERE token IN (SELECT token FROM temp.touched) ORDER BY token, agent_id, captured_at, source_path";
        let rows: Vec<ArtifactSummary> = query(&self.tx, sql, [], |r| {
            Ok(ArtifactSummary {
                token: r.get(0)?,
                agent_id: r.get(1)?,
                kind: r.get(2)?,
                path: r.get(3)?,
                session_id: r.get(4)?,
                session_key: r.get(5)?,
                project: r.get(6)?,
                harness: r.get(7)?,
                captured_at: r.get(8)?,
                membership_ts: r.get(9)?,
                sentence: r.get(10)?,
                private: r.get(11)?,
                noise: r.get(12)?,
                untrusted: r.get(13)?,
                properties: r.get(14)?,
            })
        })
        .map_err(|e| self.err(e))?;
        let mut insert = self
            .tx
            .prepare_cached(&format!(
                "INSERT INTO sessions({SESSION_COLUMNS}, fts_id, shown) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16, ?17, ?18, ?19)"
            ))
            .map_err(|e| self.err(e))?;
        // Ascending ids: FTS5 appends its content rows instead of scattering them.
        let mut next_fts_id: i64 = self
            .tx
            .query_row(
                "SELECT COALESCE(MAX(fts_id), 0) + 1 FROM sessions",
                [],
                |r| r.get(0),
            )
            .map_err(|e| self.err(e))?;
        for group in rows.chunk_by(|a, b| a.token == b.token && a.agent_id == b.agent_id) {
            let Some(s) = assemble_session(group, floor) else {
                continue;
            };
            // A row as it was (a body edited, a transcript grown with the
            // same sentence) keeps its judgement and marks nothing dirty;
            // others are judged as they are written (`Index::judge_sessions`
            // made the stored verdicts the current rules' first).
            let old = old_rows.remove(&(s.agent_id.clone(), s.token.clone()));
            let shown = match old {
                Some((old, Some(shown))) if old == s => shown,
                Some((old, _)) if old == s => shows(&s),
                Some((old, _)) => {
                    self.mark_session_dirty(&old)?;
                    self.mark_session_dirty(&s)?;
                    shows(&s)
                }
                None => {
                    self.mark_session_dirty(&s)?;
                    shows(&s)
                }
            };
            insert
                .execute(params![
                    s.agent_id,
                    s.token,
                    s.session_id,
                    s.session_key,
                    s.project,
                    s.harness,
                    s.membership_ts,
                    s.private,
                    s.sentence,
                    s.summary_path,
                    s.transcript_path,
                    s.compaction_path,
                    s.manifest_path,
                    s.compaction_at,
                    s.compaction_sentence,
                    s.noise,
                    s.untrusted,
                    next_fts_id,
                    shown
                ])
                .map_err(|e| self.err(e))?;
            let parts = |kind: &str| -> Vec<String> {
                group
                    .iter()
                    .filter(|r| r.kind == kind)
                    .map(|r| r.path.clone())
                    .collect()
            };
            let doc = DocumentParts {
                summary: parts("summary"),
                transcript: parts("transcript"),
                compaction: parts("compaction"),
                properties: group.iter().filter_map(|r| r.properties.clone()).collect(),
            };
            self.put_session_document(&s, &doc, next_fts_id, &old_bodies, load)?;
            next_fts_id += 1;
        }
        drop(insert);
        self.count_days(TOUCHED_SHOWN, 1)?;
        // Sessions gone (every artifact removed or tombstoned).
        for (old, _) in old_rows.values() {
            self.mark_session_dirty(old)?;
        }
        Ok(())
    }

    /// The touched sessions' rows as they are before the refresh, with their judgements.
    fn touched_rows(&self) -> Result<HashMap<(String, String), JudgedRow>> {
        let sql = format!(
            "SELECT {SESSION_COLUMNS}, shown FROM sessions WHERE token IN (SELECT token FROM temp.touched)"
        );
        query(&self.tx, &sql, [], |r| {
            let s = session_row(r)?;
            let shown: Option<bool> = r.get(17)?;
            Ok(((s.agent_id.clone(), s.token.clone()), (s, shown)))
        })
        .map_err(|e| self.err(e))
    }

    /// Marks a session's agent (MEMORY.md) and days (membership, compaction) dirty.
    fn mark_session_dirty(&self, s: &SessionRow) -> Result<()> {
        self.mark_dirty(&s.agent_id, &s.membership_ts)?;
        match &s.compaction_at {
            Some(at) => self.mark_dirty(&s.agent_id, at),
            None => Ok(()),
        }
    }

    /// The session's search document: its sentences and the bodies of the
    /// artifacts the session row names (the newest of each kind).
    /// The bodies in the touched sessions' current documents, by artifact path.
    fn touched_bodies(&self) -> Result<HashMap<String, String>> {
        let rows: Vec<(Option<String>, Option<String>)> = query(
            &self.tx,
            "SELECT s.summary_path, f.summary FROM sessions s JOIN session_fts f ON f.rowid = s.fts_id
               WHERE s.token IN (SELECT token FROM temp.touched)
             UNION ALL SELECT s.transcript_path, f.transcript FROM sessions s JOIN session_fts f ON f.rowid = s.fts_id
               WHERE s.token IN (SELECT token FROM temp.touched)
             UNION ALL SELECT s.compaction_path, f.compaction FROM sessions s JOIN session_fts f ON f.rowid = s.fts_id
               WHERE s.token IN (SELECT token FROM temp.touched)",
            [],
            |r| Ok((r.get(0)?, r.get(1)?)),
        )
        .map_err(|e| self.err(e))?;
        Ok(rows
            .into_iter()
            .filter_map(|(path, body)| Some((path?, body?)))
            .collect())
    }

    /// The session's search document: its sentences and the bodies of the
    /// artifacts the session row names, from this batch or the old document.
    fn put_session_document(
        &self,
        s: &SessionRow,
        doc: &DocumentParts,
        fts_id: i64,
        old: &HashMap<String, String>,
        load: &dyn Fn(&str) -> Option<String>,
    ) -> Result<()> {
        let bodies = self.bodies.borrow();
        // Every part of a kind, oldest first: a search finds a continuation's
        // text and every compaction, not only the newest.
        // One part (the usual case) is borrowed, not copied: a transcript
        // can be megabytes.
        // `fresh`: read from disk before the old document. An old summary
        // column lacks the lines its transcript held, so without the
        // transcript now (gone, or momentarily unreadable) the summary is
        // read whole again, and the trimmed column is kept only if that
        // read fails too.
        let body = |paths: &[String], fresh: bool| -> Option<std::borrow::Cow<'_, str>> {
            match paths {
                [] => None,
                [one] => {
                    if let Some(text) = bodies.get(one) {
                        return Some(std::borrow::Cow::Borrowed(text.as_str()));
                    }
                    let cached = || old.get(one).map(|t| std::borrow::Cow::Borrowed(t.as_str()));
                    let read = || load(one).map(std::borrow::Cow::Owned);
                    if fresh {
                        read().or_else(cached)
                    } else {
                        cached().or_else(read)
                    }
                }
                many => {
                    let texts: Vec<String> = many
                        .iter()
                        .filter_map(|p| bodies.get(p).cloned().or_else(|| load(p)))
                        .collect();
                    Some(std::borrow::Cow::Owned(texts.join("\n\n")))
                }
            }
        };
        let mut sentence = s.sentence.clone();
        if let Some(c) = s
            .compaction_sentence
            .as_deref()
            .filter(|c| *c != s.sentence)
        {
            sentence.push('\n');
            sentence.push_str(c);
        }
        // What a person called the session is found as its sentence is.
        for words in &doc.properties {
            sentence.push('\n');
            sentence.push_str(words);
        }
        let transcript = body(&doc.transcript, false);
        let compaction = body(&doc.compaction, false);
        let summary = body(&doc.summary, transcript.is_none());
        let summary = match (summary, &transcript) {
            (Some(summary), Some(transcript)) => match not_in_transcript(&summary, transcript) {
                std::borrow::Cow::Borrowed(_) => Some(summary),
                std::borrow::Cow::Owned(kept) => Some(std::borrow::Cow::Owned(kept)),
            },
            (summary, _) => summary,
        };
        let cjk =
            |text: &Option<std::borrow::Cow<'_, str>>| super::cjk::index_text(text.as_deref());
        self.exec(
            "INSERT INTO session_fts(rowid, sentence, summary, transcript, compaction,
                 sentence_cjk, summary_cjk, transcript_cjk, compaction_cjk)
             VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9)",
            params![
                fts_id,
                sentence,
                summary,
                transcript,
                compaction,
                super::cjk::index_text([sentence.as_str()]),
                cjk(&summary),
                cjk(&transcript),
                cjk(&compaction)
            ],
        )
    }

    /// Clears the marks a render at `now` consumed: ids up to `through`, at or
    /// before `now`. Marks another process added since (a capture indexing
    /// while this render ran) stay for its own render, even when they equal a
    /// consumed one; so do marks later than `now`, which this render's window
    /// could not show (a capture whose clock ran a millisecond ahead).
    pub fn clear_dirty(&self, through: i64, now: &str) -> Result<()> {
        self.exec(
            "DELETE FROM projection_dirty WHERE id <= ?1 AND ts <= ?2",
            params![through, now],
        )
    }
}

/// The summary's lines its transcript does not hold. `Request` and `Later
/// requests` repeat the person's turns and `Outcome` the last reply: counted
/// twice, one speaker's words outweigh what only the other said ("what pot
/// size did you recommend?" found the chat where the person named it).
/// Dropping a held line twice changes nothing, so an old column can be
/// indexed again as it is.
fn not_in_transcript<'a>(summary: &'a str, transcript: &str) -> std::borrow::Cow<'a, str> {
    use std::collections::HashSet;
    // What each line says, and a reply it quotes after a short label ("For
    // the first request: <the reply>").
    let said = |line: &'a str| -> (&'a str, Option<&'a str>) {
        let said = line.trim();
        let said = said.strip_prefix("- ").unwrap_or(said);
        let quoted = said
            .split_once(": ")
            .filter(|(label, _)| crate::sentence::word_count(label) <= 4)
            .map(|(_, rest)| rest);
        (said, quoted)
    };
    let lines: Vec<(&str, &str, Option<&str>)> = summary
        .lines()
        .map(|l| {
            let (s, q) = said(l);
            (l, s, q)
        })
        .collect();
    let wanted: HashSet<&str> = lines
        .iter()
        .flat_map(|&(_, said, quoted)| std::iter::once(said).chain(quoted))
        .filter(|s| !s.is_empty())
        .collect();
    // Only a transcript line as long as a wanted one is hashed: a transcript
    // can be megabytes, a summary is a few lines.
    let lengths: HashSet<usize> = wanted.iter().map(|s| s.len()).collect();
    let held: HashSet<&str> = transcript
        .lines()
        .map(str::trim)
        .filter(|l| lengths.contains(&l.len()) && wanted.contains(l))
        .collect();
    if held.is_empty() {
        return std::borrow::Cow::Borrowed(summary);
    }
    let kept = |&&(_, said, quoted): &&(&str, &str, Option<&str>)| {
        said.is_empty() || !(held.contains(said) || quoted.is_some_and(|q| held.contains(q)))
    };
    let kept: Vec<&str> = lines.iter().filter(kept).map(|&(line, ..)| line).collect();
    std::borrow::Cow::Owned(kept.join("\n"))
}

//! The reads the API and the UI show (runs list and pages, one run, stats) and the actions on
//! runs (answers, prune), on either engine with the same SQL (see the parent module).

use serde_json::Value;
use sqlx::Row as _;

use super::{
    AnswerOutcome, Arg, Group, MAX_PAGE, Pool, Pruned, RunFilter, RunPage, StatRow, Store,
};
use crate::ControlError;

impl Store {
    /// One run's row as the API shows it, or `None`.
    pub async fn run(&self, source: &str, run: &str) -> Result<Option<Value>, ControlError> {
        let mut page = self
            .query_runs(
                "WHERE source_id = $1 AND run_id = $2",
                vec![Arg::Text(source.to_string()), Arg::Text(run.to_string())],
                true,
            )
            .await?;
        Ok(page.pop())
    }

    /// The runs that match, newest first, one page.
    pub async fn runs(&self, f: &RunFilter) -> Result<RunPage, ControlError> {
        let mut clauses = Vec::new();
        let mut args = Vec::new();
        let mut add = |sql: &str, v: Arg, args: &mut Vec<Arg>| {
            args.push(v);
            clauses.push(sql.replace('?', &format!("${}", args.len())));
        };
        for (col, v) in [
            ("verdict", &f.verdict),
            ("repo", &f.repo),
            ("provider", &f.provider),
            ("state", &f.state),
        ] {
            if let Some(v) = v {
                add(&format!("{col} = ?"), Arg::Text(v.clone()), &mut args);
            }
        }
        if let Some(s) = &f.since {
            add("started_at >= ?", Arg::Text(s.clone()), &mut args);
        }
        if let Some(u) = &f.until {
            add("started_at < ?", Arg::Text(u.clone()), &mut args);
        }
        if let Some(c) = &f.cursor {
            let (ts, source, run) = decode_cursor(c).ok_or_else(|| {
                ControlError::Usage(
                    "the cursor is not one this server gave out: pass the `next` of the previous page".to_string(),
                )
            })?;
            args.push(Arg::Text(ts));
            args.push(Arg::Text(source));
            args.push(Arg::Text(run));
            let n = args.len();
            clauses.push(format!(
                "(started_at, source_id, run_id) < (${}, ${}, ${n})",
                n - 2,
                n - 1
            ));
        }
        let limit = f.limit.clamp(1, MAX_PAGE);
        args.push(Arg::Int(limit + 1));
        let mut sql = String::new();
        if !clauses.is_empty() {
            sql = format!("WHERE {}", clauses.join(" AND "));
        }
        sql.push_str(&format!(
            " ORDER BY started_at DESC, source_id DESC, run_id DESC LIMIT ${}",
            args.len()
        ));
        let mut runs = self.query_runs(&sql, args, false).await?;
        let next = if runs.len() > usize::try_from(limit).unwrap_or(usize::MAX) {
            runs.truncate(usize::try_from(limit).unwrap_or(usize::MAX));
            runs.last().map(|r| {
                encode_cursor(
                    r["started_at"].as_str().unwrap_or_default(),
                    r["source"].as_str().unwrap_or_default(),
                    r["run"].as_str().unwrap_or_default(),
                )
            })
        } else {
            None
        };
        Ok(RunPage { runs, next })
    }

    async fn query_runs(
        &self,
        tail: &str,
        args: Vec<Arg>,
        detail: bool,
    ) -> Result<Vec<Value>, ControlError> {
        let sql = format!(
            "SELECT source_id, run_id, kind, repo, machine, task, provider, model, verdict, blocked, started_at, ended_at, cost_usd, input_tokens, output_tokens, events, state, state_detail, receipt_sha256, detail FROM runs {tail}"
        );
        let err = ControlError::db;
        on!(&self.pool, p => {
            let mut q = sqlx::query(sqlx::AssertSqlSafe(sql));
            for a in args {
                q = match a { Arg::Text(s) => q.bind(s), Arg::Int(i) => q.bind(i) };
            }
            q.fetch_all(p).await.map_err(err("list the runs"))?
                .iter().map(|r| {
                    let mut v = serde_json::json!({
                        "source": r.try_get::<String, _>(0)?,
                        "run": r.try_get::<String, _>(1)?,
                        "kind": r.try_get::<Option<String>, _>(2)?,
                        "repo": r.try_get::<String, _>(3)?,
                        "machine": r.try_get::<String, _>(4)?,
                        "task": r.try_get::<Option<String>, _>(5)?,
                        "provider": r.try_get::<Option<String>, _>(6)?,
                        "model": r.try_get::<Option<String>, _>(7)?,
                        "verdict": r.try_get::<String, _>(8)?,
                        "blocked": r.try_get::<i64, _>(9)? == 1,
                        "started_at": r.try_get::<String, _>(10)?,
                        "ended_at": r.try_get::<Option<String>, _>(11)?,
                        "cost_usd": r.try_get::<Option<f64>, _>(12)?,
                        "input_tokens": r.try_get::<i64, _>(13)?,
                        "output_tokens": r.try_get::<i64, _>(14)?,
                        "events": r.try_get::<i64, _>(15)?,
                        "state": r.try_get::<String, _>(16)?,
                        "state_detail": r.try_get::<String, _>(17)?,
                        "receipt_sha256": r.try_get::<Option<String>, _>(18)?,
                    });
                    if detail {
                        let d: String = r.try_get(19)?;
                        if let (Some(obj), Ok(Value::Object(extra))) = (v.as_object_mut(), serde_json::from_str::<Value>(&d)) {
                            obj.extend(extra);
                        }
                    }
                    Ok(v)
                }).collect::<Result<_, sqlx::Error>>().map_err(err("list the runs"))
        })
    }

    /// Runs, verified runs and cost per group, newest or largest group first. A group's cost is
    /// `None` when any of its runs' cost was not measured (SQL's `SUM` would skip those and
    /// report the rest, or 0, as the total); `cost_unmeasured` counts them.
    pub async fn stats(&self, group: Group) -> Result<Vec<StatRow>, ControlError> {
        let key = group.expr();
        let sql = format!(
            "SELECT {key} AS k, COUNT(*), COUNT(CASE WHEN verdict = 'VERIFIED' THEN 1 END), CASE WHEN COUNT(cost_usd) = COUNT(*) THEN SUM(cost_usd) END, COUNT(*) - COUNT(cost_usd) FROM runs GROUP BY {key} ORDER BY k DESC"
        );
        let err = ControlError::db;
        on!(&self.pool, p => {
            sqlx::query(sqlx::AssertSqlSafe(sql)).fetch_all(p).await.map_err(err("compute the stats"))?
                .iter().map(|r| Ok(StatRow {
                    key: r.try_get(0)?,
                    runs: r.try_get(1)?,
                    verified: r.try_get(2)?,
                    cost_usd: r.try_get(3)?,
                    cost_unmeasured: r.try_get(4)?,
                })).collect::<Result<_, sqlx::Error>>().map_err(err("compute the stats"))
        })
    }

    /// Stores the answer to a BLOCKED run (replacing an earlier one not yet picked up).
    pub async fn answer(
        &self,
        source: &str,
        run: &str,
        answer: &str,
    ) -> Result<AnswerOutcome, ControlError> {
        let Some(row) = self.run(source, run).await? else {
            return Ok(AnswerOutcome::UnknownRun);
        };
        if row["blocked"] != Value::Bool(true) {
            return Ok(AnswerOutcome::NotBlocked(
                row["verdict"].as_str().unwrap_or_default().to_string(),
            ));
        }
        on!(&self.pool, p => {
            sqlx::query("INSERT INTO answers (source_id, run_id, answer, created_at, picked_at) VALUES ($1, $2, $3, $4, NULL) ON CONFLICT (source_id, run_id) DO UPDATE SET answer = excluded.answer, created_at = excluded.created_at, picked_at = NULL")
                .bind(source).bind(run).bind(answer).bind(loki_core::time::now_rfc3339())
                .execute(p).await.map_err(ControlError::db("store the answer"))?;
        });
        self.audit("answer", "loopback", &format!("{source}/{run}"))
            .await?;
        Ok(AnswerOutcome::Stored)
    }

    /// The answer waiting for a run (not yet picked up), if any; `take` marks it picked up.
    pub async fn pending_answer(
        &self,
        source: &str,
        run: &str,
        take: bool,
    ) -> Result<Option<String>, ControlError> {
        let err = ControlError::db;
        on!(&self.pool, p => {
            let a = sqlx::query("SELECT answer FROM answers WHERE source_id = $1 AND run_id = $2 AND picked_at IS NULL")
                .bind(source).bind(run).fetch_optional(p).await.map_err(err("read the answer"))?
                .map(|r| r.try_get::<String, _>(0)).transpose().map_err(err("read the answer"))?;
            if take && a.is_some() {
                sqlx::query("UPDATE answers SET picked_at = $3 WHERE source_id = $1 AND run_id = $2")
                    .bind(source).bind(run).bind(loki_core::time::now_rfc3339())
                    .execute(p).await.map_err(err("mark the answer picked up"))?;
            }
            Ok(a)
        })
    }

    /// Removes the runs of `repo` started before `before` (with their events, receipts and
    /// answers), or only lists them with `dry_run`.
    pub async fn prune(
        &self,
        repo: &str,
        before: &str,
        dry_run: bool,
    ) -> Result<Pruned, ControlError> {
        let err = ControlError::db;
        let begin = self.begin_sql();
        let runs: Vec<(String, String)> = on!(&self.pool, p => {
            let mut tx = p.begin_with(begin).await.map_err(err("begin the prune"))?;
            let runs: Vec<(String, String)> = sqlx::query("SELECT source_id, run_id FROM runs WHERE repo = $1 AND started_at < $2 ORDER BY started_at")
                .bind(repo).bind(before).fetch_all(&mut *tx).await.map_err(err("find the runs to prune"))?
                .iter().map(|r| Ok((r.try_get(0)?, r.try_get(1)?))).collect::<Result<_, sqlx::Error>>()
                .map_err(err("find the runs to prune"))?;
            if !dry_run {
                for (s, r) in &runs {
                    for table in ["events", "receipts", "answers", "runs"] {
                        sqlx::query(sqlx::AssertSqlSafe(format!("DELETE FROM {table} WHERE source_id = $1 AND run_id = $2")))
                            .bind(s).bind(r).execute(&mut *tx).await.map_err(ControlError::db(format!("prune {table}")))?;
                    }
                }
                sqlx::query("INSERT INTO audit (ts, action, actor, detail) VALUES ($1, 'prune', 'cli', $2)")
                    .bind(loki_core::time::now_rfc3339()).bind(format!("{} runs of {repo} before {before}", runs.len()))
                    .execute(&mut *tx).await.map_err(err("write the audit log"))?;
            }
            tx.commit().await.map_err(err("commit the prune"))?;
            runs
        });
        Ok(Pruned {
            runs: runs.into_iter().map(|(s, r)| format!("{s}/{r}")).collect(),
            dry_run,
        })
    }
}

fn encode_cursor(ts: &str, source: &str, run: &str) -> String {
    hex::encode(format!("{ts}\n{source}\n{run}"))
}

fn decode_cursor(c: &str) -> Option<(String, String, String)> {
    let text = String::from_utf8(hex::decode(c).ok()?).ok()?;
    let mut parts = text.splitn(3, '\n');
    Some((
        parts.next()?.to_string(),
        parts.next()?.to_string(),
        parts.next()?.to_string(),
    ))
}
